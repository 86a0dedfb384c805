#!/usr/bin/env python3
"""The web chat's conversation list in a real browser (Chromium via Playwright).

Usage: conversations_page_test.py PATH_TO_SIGIL  (run by ctest as cli.conversations_page_test)

Starts `sigil serve` (the embedded demo model) with SIGIL_API_TOKEN set, so the list's own HTTP calls must
carry the page's token, then `node tests/e2e/conversations.e2e.mjs`: list, switch, rename (kept across a
reload), delete another conversation and the open one (a second page showing it moves on too).
"""
import os
import secrets
import shutil
import signal
import sys
import tempfile

from sigil_serve import SigilServe, run_against

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
E2E = os.path.join(ROOT, "tests", "e2e")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def fail(message):
    print(f"conversations_page_test: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    sigil = os.path.abspath(sys.argv[1])
    if shutil.which("node") is None or not os.path.isdir(os.path.join(E2E, "node_modules", "playwright-core")):
        fail("node and tests/e2e/node_modules are needed: run scripts/npm-deps (make test does)")
    if not os.access(CHROMIUM, os.X_OK):
        fail(f"{CHROMIUM} is missing: run scripts/bootstrap as root (Debian package chromium)")
    token = secrets.token_urlsafe(16)
    with tempfile.TemporaryDirectory(prefix="sigil-conversations-page-") as tmp:
        env = dict(os.environ, SIGIL_API_TOKEN=token)
        server = SigilServe(sigil, ["--data", os.path.join(tmp, "data"), "--listen", "127.0.0.1:0"], cwd=tmp,
                            env=env)
        if not server.wait_listening():
            server.stop(signal.SIGKILL)
            fail("sigil serve did not start:\n" + server.stderr_text())
        run_against(server, ["node", os.path.join(E2E, "conversations.e2e.mjs"), "--url", server.url + "/",
                             "--token", token], E2E, 300, fail)
        if token in server.stderr_text() or any(token in line for line in server.out):
            fail("the token appears in the server's output")
    print("conversations_page_test: passed")


if __name__ == "__main__":
    main()
