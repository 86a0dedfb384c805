#!/usr/bin/env python3
"""The web chat page in a real browser: `sigil serve` + Playwright + Debian's Chromium.

Usage: web_e2e_test.py PATH_TO_SIGIL [--demo PROMPTS --screenshot OUT.png]
(run by ctest as cli.web_e2e_test)

Starts `sigil serve` with tests/e2e/e2e.toml (port 0, a fresh data folder, the replay model playing
tests/e2e/chat-replay.jsonl, a send-file folder holding report.pdf and pixel.png), waits for its
"sigil: listening on http://HOST:PORT" line, runs `node tests/e2e/chat.e2e.mjs` against it (the checks
are listed there), then stops the server with SIGTERM and expects a clean exit.

With --demo, the server plays the embedded demo script instead (no model configured) and the node script
sends PROMPTS ("first|second|...") and saves the screenshot at OUT.png: that is how docs/screenshot.png
is made.

Needs node (20+), tests/e2e/node_modules (scripts/npm-deps) and /usr/bin/chromium (scripts/bootstrap);
when one is missing the test fails and says which.
"""
import os
import re
import secrets
import struct
import sys
import zlib

from sigil_serve import E2E, file_folder, need_browser, run_against, serve_logged, test_folder, write_toml


def fail(message):
    print(f"web_e2e_test: {message}", file=sys.stderr)
    sys.exit(1)


def png_1x1():
    """A valid 1x1 PNG (an indigo pixel), written here so the test needs no binary fixture."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    raw = b"\x00" + bytes([0x4F, 0x46, 0xE5])
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_config(tmp, demo):
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    # Every byte value, in a random order, so a download that re-encodes anything shows.
    report = bytearray(range(256)) * 64 + secrets.token_bytes(4096)
    files = file_folder(tmp, [("report.pdf", b"%PDF-1.4\n" + bytes(report)), ("pixel.png", png_1x1())])
    with open(os.path.join(E2E, "e2e.toml"), encoding="utf-8") as f:
        config = f.read()
    config = (config.replace("@DATA@", data).replace("@FILES@", files)
              .replace("@REPLAY@", os.path.join(E2E, "chat-replay.jsonl")))
    if demo:
        # No replay file and no file folder: the server plays its embedded demo script, which sends the
        # sample files it puts in DATA/files.
        config = re.sub(r'(?m)^(replay|file_roots) = .*\n', "", config)
    return write_toml(tmp, config), files


def main():
    if len(sys.argv) < 2:
        fail("usage: web_e2e_test.py PATH_TO_SIGIL [--demo PROMPTS --screenshot OUT.png]")
    sigil = os.path.abspath(sys.argv[1])
    demo = "--demo" in sys.argv
    screenshot_out = None
    prompts = ""
    if demo:
        prompts = sys.argv[sys.argv.index("--demo") + 1]
    if "--screenshot" in sys.argv:
        screenshot_out = os.path.abspath(sys.argv[sys.argv.index("--screenshot") + 1])
    need_browser(fail)

    with test_folder("sigil-web-e2e-", "web_e2e_test") as tmp:
        config, files = write_config(tmp, demo)
        server = serve_logged(sigil, config, tmp, fail)
        url = server.url + "/"
        shot = screenshot_out or os.path.join(tmp, "chat.png")
        cmd = ["node", os.path.join(E2E, "chat.e2e.mjs"), "--url", url, "--screenshot", shot]
        cmd += ["--demo", "--prompts", prompts] if demo else ["--files", files]
        run_against(server, cmd, E2E, 540, fail)
        if os.path.exists(shot):
            print(f"web_e2e_test: screenshot {shot} ({os.path.getsize(shot)} bytes)")
        print("web_e2e_test: 1 passed, 0 failed")


if __name__ == "__main__":
    main()
