#!/usr/bin/env python3
"""`cmake --install` and find_package(sigil): the installed package builds and runs a program.

Usage: install_test.py PATH_TO_SIGIL  (run by ctest as cli.install_test; the build folder is the one
holding that sigil, and its CMAKE_CXX_FLAGS, read from CMakeCache.txt, build the consumer too, so a
sanitizer build's library links)

Installs the build into a temporary prefix, checks what landed there (the command, libsigil.a, the public
headers, the CMake package, the sample configuration and the systemd unit), then configures and builds
tests/install/consumer against that prefix alone and runs it: it parses a reply through the installed
library.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fail(message):
    print(f"install_test: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=540, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    return r


def main():
    build = os.path.dirname(os.path.abspath(sys.argv[1]))
    flags = ""
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as cache:
        for line in cache:
            if line.startswith("CMAKE_CXX_FLAGS:"):
                flags = line.split("=", 1)[1].strip()
    with tempfile.TemporaryDirectory(prefix="sigil-install-") as tmp:
        prefix = os.path.join(tmp, "prefix")
        run(["cmake", "--install", build, "--prefix", prefix])
        for rel in ["bin/sigil", "lib/libsigil.a", "include/sigil/parse/parser.h", "lib/cmake/sigil/sigilConfig.cmake",
                    "lib/cmake/sigil/sigilConfigVersion.cmake", "share/doc/sigil/examples/sigil.toml",
                    "share/doc/sigil/examples/sigil.service"]:
            if not os.path.exists(os.path.join(prefix, rel)):
                fail(f"{rel} is not installed")
        print("ok   installed: the command, libsigil.a, headers, the CMake package, the examples")
        version = run([os.path.join(prefix, "bin", "sigil"), "--version"]).stdout.strip()
        print(f"ok   the installed command: {version}")

        consumer = os.path.join(tmp, "consumer")
        run(["cmake", "-S", os.path.join(ROOT, "tests", "install", "consumer"), "-B", consumer,
             f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_CXX_FLAGS={flags}"])
        run(["cmake", "--build", consumer, "-j", "2"])
        out = run([os.path.join(consumer, "consumer")]).stdout
        if out != "Hello there.|2|react\n":
            fail(f"the consumer printed {out!r}")
        print("ok   find_package(sigil) built a program that parses a reply through the installed library")
    print("install_test: passed")


if __name__ == "__main__":
    main()
