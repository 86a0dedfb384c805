"""What the chat channel end-to-end tests share (telegram_channel_test.py, discord_channel_test.py): a fake
platform (tests/fakes/*.mjs) as a child process with its admin API, the check/fail reporting and waiting for
an event (never a fixed sleep)."""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import urllib.request
import zlib

from sigil_serve import SigilServe

WAIT = 120  # seconds: an ASan build on a loaded 2-core machine is slow


class Checks:
    """check() prints one line per check; the first failed one ends the test with exit status 1."""

    def __init__(self, name):
        self.name = name

    def fail(self, message):
        print(f"{self.name}: FAIL: {message}", file=sys.stderr)
        sys.exit(1)

    def check(self, ok, message):
        print(("ok   " if ok else "FAIL ") + message)
        if not ok:
            self.fail(message)

    def wait_for(self, what, predicate, server=None):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            if server is not None and server.proc.poll() is not None:
                self.fail(f"sigil serve exited while waiting for {what}:\n{server.stderr_text()}")
            time.sleep(0.05)
        self.fail(f"timed out waiting for {what}" + (f"\nserver log:\n{server.stderr_text()}" if server else ""))


class FakeServer:
    """`node SCRIPT --port 0 --state-dir DIR ARGS…`, ready when it prints `listening <port>`."""

    def __init__(self, checks, script, state_dir, args=()):
        self.proc = subprocess.Popen(["node", script, "--port", "0", "--state-dir", state_dir, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"listening (\d+)", line)
        if not m:
            checks.fail("the fake did not start: " + line + self.proc.stderr.read())
        self.url = f"http://127.0.0.1:{m.group(1)}"

    def admin(self, path, body=None, method=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data,
                                     method=method or ("POST" if data is not None else "GET"),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"null")

    def entries(self, since=0, kind=None):
        return [e for e in self.admin(f"/_fake/journal?since={since}")["entries"]
                if kind is None or e.get("kind") == kind]

    def last_seq(self):
        return self.admin("/_fake/journal")["last_seq"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def write_replay(path, replies):
    """A replay model's file: one JSON object ({match?, reply}) per line."""
    with open(path, "w", encoding="utf-8") as f:
        for line in replies:
            f.write(json.dumps(line) + "\n")


def start_serve(checks, sigil, config, tmp, log_name):
    """`sigil serve --config CONFIG` in TMP, its stderr also in TMP/LOG_NAME, once it says it listens."""
    s = SigilServe(sigil, ["--config", config], cwd=tmp, echo=True, log_path=os.path.join(tmp, log_name))
    if not s.wait_listening():
        s.stop(signal.SIGKILL)
        checks.fail("no listening line:\n" + s.stderr_text())
    return s


def stop_cleanly(checks, server, what="sigil serve stops cleanly on SIGTERM"):
    """SIGTERM, and a check that sigil serve exited 0; returns None (the caller's server is gone)."""
    code = server.stop()
    checks.check(code == 0, f"{what} (exit {code})")


def clean_up(server, fake, tmp):
    """The end of a channel test, passed or not: sigil killed if it still runs, the fake stopped, TMP removed."""
    if server is not None:
        server.stop(signal.SIGKILL)
    fake.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def png_bytes(side=2, rgb=b"\xff\x00\x00"):
    """A valid side x side PNG of one colour (the Telegram fake reads its header; an invalid one is
    IMAGE_PROCESS_FAILED)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + rgb * side for _ in range(side))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
