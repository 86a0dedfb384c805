#!/usr/bin/env python3
"""A bad [model] url is a configuration error that names the model, never an internal error.

Usage: bad_model_url_test.py PATH_TO_SIGIL  (run by ctest as cli.bad_model_url_test)

The archive's embeddings client is made from the same url before the chat client; its refusal must read as
the model's (exit 2, "model: ..."), as the chat client's always did.
"""
import os
import subprocess
import sys
import tempfile


def main():
    sigil = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="sigil-badurl-") as tmp:
        env = dict(os.environ, SIGIL_MODEL_URL="ftp://example.invalid/v1")
        p = subprocess.run([sigil, "serve", "--listen", "127.0.0.1:0", "--data", os.path.join(tmp, "data")],
                           cwd=tmp, env=env, capture_output=True, text=True, timeout=60)
        err = p.stderr
        ok = p.returncode == 2 and "model: " in err and "internal error" not in err and "ftp://" in err
        print(f"exit {p.returncode}; stderr: {err.strip()[-300:]}")
        if not ok:
            print("bad_model_url_test: FAIL: expected exit 2 with a 'model: ...' configuration error", file=sys.stderr)
            sys.exit(1)
    print("bad_model_url_test: ok")


if __name__ == "__main__":
    main()
