#!/usr/bin/env python3
"""Loopback is no trust boundary, in real Chromium: tests/e2e/origin.e2e.mjs against `sigil serve`.

Usage: origin_e2e_test.py PATH_TO_SIGIL   (run by ctest as cli.origin_e2e_test)

Starts `sigil serve` on 127.0.0.1 (port 0, a fresh data folder, page_scripts = true, the replay model playing
tests/e2e/origin-replay.jsonl) and an attacker's page server on 127.0.0.2 (another loopback origin, serving
tests/e2e/attack.html), runs the browser checks listed in origin.e2e.mjs, then stops the server with SIGTERM
and expects a clean exit. Needs what web_e2e_test.py needs (node, tests/e2e/node_modules, /usr/bin/chromium).
"""
import functools
import http.server
import os
import shutil
import sys
import tempfile
import threading

from sigil_serve import E2E, need_browser, run_against, serve_logged, write_toml

CONFIG = """
[server]
listen = "127.0.0.1:0"
messages_per_minute = 0

[store]
data = "{data}"

[model]
replay = "{replay}"
tokens_per_second = 0

[actions]
page_scripts = true
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def fail(message):
    print(f"origin_e2e_test: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) < 2:
        fail("usage: origin_e2e_test.py PATH_TO_SIGIL")
    sigil = os.path.abspath(sys.argv[1])
    need_browser(fail)

    tmp = tempfile.mkdtemp(prefix="sigil-origin-e2e-")
    attacker = None
    try:
        config = write_toml(tmp, CONFIG.format(data=os.path.join(tmp, "data"),
                                               replay=os.path.join(E2E, "origin-replay.jsonl")))
        handler = functools.partial(QuietHandler, directory=E2E)
        attacker = http.server.ThreadingHTTPServer(("127.0.0.2", 0), handler)
        threading.Thread(target=attacker.serve_forever, daemon=True).start()
        attacker_url = f"http://127.0.0.2:{attacker.server_address[1]}"

        server = serve_logged(sigil, config, tmp, fail)
        cmd = ["node", os.path.join(E2E, "origin.e2e.mjs"), "--gateway", server.url, "--attacker", attacker_url]
        run_against(server, cmd, E2E, 300, fail)
        print("origin_e2e_test: 1 passed, 0 failed")
    finally:
        if attacker is not None:
            attacker.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
