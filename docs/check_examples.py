#!/usr/bin/env python3
"""Runs every example in the docs and compares its output with what the docs say.

An example is a `console` code block: a line starting with `$ ` is a shell command (run with bash, with the
`sigil` under test first on PATH); the lines after it, up to the next `$ ` line or the end of the block, are
its exact standard output.

    docs/check_examples.py [--sigil build/release/sigil] [--write] [docs/directives.md docs/cli.md]

--write replaces each example's output with what the command prints now (review the diff: the prose around
an example says what it shows).

Exit status: 0 when every example matches, 1 otherwise.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def examples(lines):
    """Yields (index of the command line, command, index past its output, expected output)."""
    in_block, cmd, out, start = False, None, [], 0
    for i, line in enumerate(lines):
        if not in_block:
            in_block = line.strip() == "```console"
            continue
        if line.strip() == "```" or line.startswith("$ "):
            if cmd is not None:
                yield start, cmd, i, "\n".join(out)
            cmd, out = None, []
            if line.startswith("$ "):
                cmd, start = line[2:], i
            else:
                in_block = False
        elif cmd is not None:
            out.append(line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigil", default=str(ROOT / "build/release/sigil"))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("files", nargs="*", default=[str(ROOT / "docs/directives.md"), str(ROOT / "docs/cli.md")])
    args = ap.parse_args()
    failures = total = 0
    with tempfile.TemporaryDirectory() as bin_dir:
        os.symlink(os.path.abspath(args.sigil), os.path.join(bin_dir, "sigil"))
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], LC_ALL="C.UTF-8")
        for name in args.files:
            path = pathlib.Path(name)
            lines = path.read_text(encoding="utf-8").split("\n")
            edits = []
            for start, cmd, end, expected in examples(lines):
                total += 1
                got = subprocess.run(["bash", "-c", cmd], capture_output=True, env=env).stdout.decode()
                got = got.rstrip("\n")
                if got != expected:
                    failures += 1
                    print(f"{name}:{start + 1}: {cmd}\n  expected: {expected}\n  got:      {got}")
                    edits.append((start + 1, end, got.split("\n") if got else []))
            if args.write and edits:
                for begin, end, new in reversed(edits):
                    lines[begin:end] = new
                path.write_text("\n".join(lines), encoding="utf-8")
    print(f"{total - failures}/{total} examples match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
