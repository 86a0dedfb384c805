"""What the chat channel end-to-end tests share (telegram, discord, slack, matrix and signal _channel_test.py): a fake
platform (tests/fakes/*.mjs) as a child process with its admin API, sigil serve's start and stop around it.
The check/fail reporting and waiting for an event (never a fixed sleep) are sigil_serve.Checks."""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import urllib.request
import zlib

# Checks and write_replay: the channel tests import them from here.
from sigil_serve import Checks, SigilServe, write_replay  # noqa: F401

# The fakes and the bot tokens they accept (tests/fakes/*.mjs; not secrets).
FAKES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fakes")
TELEGRAM_FAKE, TELEGRAM_TOKEN = os.path.join(FAKES, "telegram.mjs"), "123456789:AAHfakeTokenForSigilTests00000000000"
DISCORD_FAKE = os.path.join(FAKES, "discord.mjs")
DISCORD_TOKEN = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.GfAkEt.sigil-test-token-not-a-secret"


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


class ChannelRun:
    """One channel test's run, as `with ChannelRun(CHECKS, "Telegram", "sigil-tg-", make_fake) as run:` — a
    temporary folder (run.tmp) holding the fake platform's state (run.fake = make_fake(state folder)) and, once
    run.start() is called, sigil serve (run.server). Leaving the block, passed or not, kills sigil serve if it
    still runs, stops the fake, removes the folder and calls what was added to run.at_exit."""

    def __init__(self, checks, platform, prefix, make_fake):
        if shutil.which("node") is None:
            checks.fail(f"node is not installed (the {platform} fake runs on Node 20+)")
        self.checks = checks
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.fake = make_fake(os.path.join(self.tmp, "fake"))
        self.server = None
        self.at_exit = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        clean_up(self.server, self.fake, self.tmp)
        for call in self.at_exit:
            call()
        return False

    def start(self, sigil, config, log_name="serve.log"):
        """start_serve() with this run's folder; the server, also kept as run.server."""
        self.server = start_serve(self.checks, sigil, config, self.tmp, log_name)
        return self.server

    def stop_cleanly(self, what="sigil serve stops cleanly on SIGTERM"):
        stop_cleanly(self.checks, self.server, what)
        self.server = None


def check_answered_once(checks, tmp, markers, logs=("serve1.log", "serve2.log")):
    """The count over every message written: MARKERS maps each message to what its turn's log line holds; in
    the serve logs (LOGS, in TMP) each must be answered once: 0 lost, 0 answered twice."""
    lines = [line for name in logs for line in open(os.path.join(tmp, name)).readlines()]
    answers = {key: sum(1 for line in lines if marker in line) for key, marker in markers.items()}
    lost = [k for k, n in answers.items() if n == 0]
    twice = [k for k, n in answers.items() if n > 1]
    checks.check(not lost, f"0 lost inbound messages ({len(markers)} written): {lost}")
    checks.check(not twice, f"0 messages answered twice: {twice}")


def check_shown_once(checks, texts, echoes, echo_tests):
    """What the bot showed in the chat the fault tests wrote to (TEXTS): the slow answer, each of the ECHOES
    echo answers (of ECHO_TESTS) and the report's last message, each exactly once."""
    checks.check(sum("MARK-SLOW" in t for t in texts) == 1, "the slow answer is shown exactly once")
    checks.check(sum(t == "Answer to MARK-ECHO." for t in texts) == echoes,
                 f"each of the {echoes} echo answers ({echo_tests}) is shown exactly once")
    checks.check(sum(t == "That is all." for t in texts) == 1, "the report's last message is shown once")


def channel_health(checks, server, channel):
    """GET /healthz, checked to answer 200 with status ok while the channel runs; the channel's part of it."""
    with urllib.request.urlopen(server.url + "/healthz", timeout=30) as r:
        health = json.loads(r.read())
        checks.check(r.status == 200 and health["status"] == "ok", "/healthz stays ok with the channel running")
    return health["channels"][channel]


def metrics_text(server):
    """GET /metrics: the Prometheus text."""
    with urllib.request.urlopen(server.url + "/metrics", timeout=30) as r:
        return r.read().decode()


def png_bytes(side=2, rgb=b"\xff\x00\x00"):
    """A valid side x side PNG of one colour (the Telegram fake reads its header; an invalid one is
    IMAGE_PROCESS_FAILED)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + rgb * side for _ in range(side))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
