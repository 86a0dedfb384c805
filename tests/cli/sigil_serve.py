"""`sigil serve` for the tests in tests/cli: start it, wait for its listening line, stop it.

Not a test itself: ctest runs tests/cli/*_test.py only, and this module's name does not end in _test.py.
The tests import it from their own folder (python puts the script's folder first on sys.path).

    server = SigilServe(sigil, ["--config", config], cwd=tmp, echo=True, log_path=tmp + "/serve.log")
    if not server.wait_listening():
        server.stop(signal.SIGKILL)
        fail("no listening line:\n" + server.stderr_text())
    ... server.url, server.port ...
    code = server.stop()  # SIGTERM; None when it did not exit in time (it is killed then)
"""
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

# Generous: an ASan build on a loaded 2-core machine starts and stops slowly.
START_TIMEOUT = 120
STOP_TIMEOUT = 60

LISTENING = re.compile(r"sigil: listening on (http://\S+)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
E2E = os.path.join(ROOT, "tests", "e2e")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


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

    def wait_for(self, what, predicate, server=None, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            if server is not None and server.proc.poll() is not None:
                self.fail(f"sigil serve exited while waiting for {what}:\n{server.stderr_text()}")
            time.sleep(0.05)
        self.fail(f"timed out waiting for {what}" + (f"\nserver log:\n{server.stderr_text()}" if server else ""))


class Tally:
    """Checks that go on after a failure: check() prints one line per check and keeps the failed ones in
    `failures`; end() exits 1 naming how many failed, or prints `NAME: passed`."""

    def __init__(self, name):
        self.name = name
        self.failures = []

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)
        return ok

    def end(self):
        if self.failures:
            print(f"{self.name}: {len(self.failures)} failed", file=sys.stderr)
            sys.exit(1)
        print(f"{self.name}: passed")


def write_toml(tmp, text):
    """TMP/sigil.toml with this text; its path."""
    path = os.path.join(tmp, "sigil.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def serve_toml(tmp, listen="127.0.0.1:0", rate_limited=True):
    """The [server] and [store] sections of a test's sigil.toml: LISTEN, data in TMP/data; without the
    message rate limit unless RATE_LIMITED."""
    limit = "" if rate_limited else "messages_per_minute = 0\n"
    return f'[server]\nlisten = "{listen}"\n{limit}[store]\ndata = "{tmp}/data"\n'


def replay_model_toml(replay, tokens_per_second):
    """The [model] section of the replay model playing the file REPLAY at TOKENS_PER_SECOND (0: at once)."""
    return f'[model]\nreplay = "{replay}"\ntokens_per_second = {tokens_per_second}\n'


def replay_serve_toml(tmp):
    """The head of a test's sigil.toml: a free loopback port, no message rate limit, data in TMP/data and the
    replay model reading TMP/replay.jsonl at full speed."""
    return serve_toml(tmp, rate_limited=False) + replay_model_toml("replay.jsonl", 0)


def file_folder(tmp, files=()):
    """TMP/files holding FILES ((name, bytes) pairs): the folder a test's [actions] file_roots names; its path."""
    folder = os.path.join(tmp, "files")
    os.makedirs(folder)
    for name, data in files:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return folder


def write_replay(path, replies):
    """A replay model's file: one JSON object ({match?, reply}) per line."""
    with open(path, "w", encoding="utf-8") as f:
        for line in replies:
            f.write(json.dumps(line) + "\n")


def db_rows(data, sql, *params):
    """The rows of one query on DATA/sigil.db (a connection of its own, closed again)."""
    db = sqlite3.connect(os.path.join(data, "sigil.db"), timeout=30)
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()


def need_browser(fail):
    """The browser tests fail (never skip) without node, tests/e2e/node_modules or Debian's Chromium."""
    if shutil.which("node") is None:
        fail("node is not installed (Node 20+ is needed)")
    if not os.path.isdir(os.path.join(E2E, "node_modules", "playwright-core")):
        fail("tests/e2e/node_modules is missing: run scripts/npm-deps (make test does)")
    if not os.access(CHROMIUM, os.X_OK):
        fail(f"{CHROMIUM} is missing: run scripts/bootstrap as root (Debian package chromium)")


def serve_logged(sigil, config, tmp, fail):
    """`sigil serve --config CONFIG` in TMP, echoed and logged to TMP/serve.log, once it listens; fail(...)
    with its log when it never says so."""
    server = SigilServe(sigil, ["--config", config], cwd=tmp, echo=True, log_path=os.path.join(tmp, "serve.log"))
    if not server.wait_listening():
        code = server.stop(signal.SIGKILL)
        fail(f"sigil serve did not print its listening line (exit {code}):\n{server.stderr_text()}")
    return server


@contextlib.contextmanager
def test_folder(prefix, name):
    """A fresh temporary folder for the `with` block: removed after it, unless the block failed (an exception or
    sys.exit) and SIGIL_KEEP_TMP is set, when NAME says where it is kept."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    ok = False
    try:
        yield tmp
        ok = True
    finally:
        if ok or os.environ.get("SIGIL_KEEP_TMP") is None:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"{name}: kept {tmp} (SIGIL_KEEP_TMP)")


class SigilServe:
    """One `sigil serve` process. Its standard output and error are read by threads into `out` and `err`
    (lists of lines): with echo, each output line is also printed as "serve: LINE"; with log_path, the
    error lines are also written to that file as they come (kept with the test's folder for debugging)."""

    def __init__(self, sigil, args, cwd=None, env=None, echo=False, log_path=None):
        self.proc = subprocess.Popen([sigil, "serve", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        self.url = None  # "http://HOST:PORT", no trailing slash
        self.port = None
        self._echo = echo
        self._log = open(log_path, "w", encoding="utf-8") if log_path else None
        self._listening = threading.Event()
        self._readers = [threading.Thread(target=self._read_out, daemon=True),
                         threading.Thread(target=self._read_err, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_out(self):
        for line in self.proc.stdout:
            self.out.append(line)
            if self._echo:
                sys.stdout.write(f"serve: {line}")
            m = LISTENING.search(line)
            if m and self.url is None:
                self.url = m.group(1).rstrip("/")
                self.port = urllib.parse.urlsplit(self.url).port
                self._listening.set()

    def _read_err(self):
        try:
            for line in self.proc.stderr:
                self.err.append(line)
                if self._log:
                    self._log.write(line)
                    self._log.flush()
        finally:
            if self._log:
                self._log.close()

    def wait_listening(self, timeout=START_TIMEOUT):
        """True once the listening line is printed; False when the process ends first or after timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._listening.wait(0.2):
                return True
            if self.proc.poll() is not None:
                break
        return self._listening.is_set()

    def stop(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT):
        """Sends sig and waits: the exit code (negative for a signal), or None when the process did not exit
        within timeout (it is killed then). Either way its output has been read to the end."""
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        for reader in self._readers:
            reader.join(timeout=10)
        return code

    def stderr_text(self):
        return "".join(self.err)

    def stop_or_fail(self, fail, who="sigil serve"):
        """stop() with SIGTERM; fail(message with the log) unless it exited 0."""
        code = self.stop()
        if code != 0:
            fail(f"{who} did not stop cleanly ({code}):\n{self.stderr_text()}")


def request(url, body=None, headers=None, timeout=120):
    """GET (no body) or POST a JSON body; the answer's bytes."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read()


def sse_events(raw):
    """An SSE answer's events as (name or None, parsed JSON data), `[DONE]` left out."""
    events = []
    for block in raw.decode("utf-8").split("\n\n"):
        name, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
        if data is not None and data != "[DONE]":
            events.append((name, json.loads(data)))
    return events


def sse_turn(port, conversation, text, user="web", stop_at=None, timeout=START_TIMEOUT):
    """POSTs a message and reads the SSE stream: returns (events, status). stop_at: an event name after
    which to return at once (the stream stays open)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    body = json.dumps({"text": text, "user": user})
    conn.request("POST", f"/v1/conversations/{conversation}/messages", body,
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        return [("http", {"status": resp.status, "body": resp.read().decode()})], resp.status
    events, name, data = [], None, []
    while True:
        line = resp.fp.readline()
        if not line:
            break
        line = line.decode().rstrip("\r\n")
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and name is not None:
            events.append((name, json.loads("\n".join(data)) if data else None))
            if name == "end" or name == stop_at:
                break
            name, data = None, []
    if stop_at is None:
        conn.close()
    else:
        events.append(("conn", conn))  # kept open by the caller
    return events, 200


def run_against(server, cmd, cwd, timeout, fail, env=None):
    """Runs a test program (`cmd`, e.g. a node browser test) against a started server, then stops the server
    with SIGTERM; calls fail(message) when the program failed or timed out, or the server did not stop
    cleanly. The server's log is part of every failure message."""
    try:
        test = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        test = None
    code = server.stop()
    log = server.stderr_text()
    if code is None:
        fail(f"sigil serve did not stop within {STOP_TIMEOUT} s of SIGTERM:\n{log}")
    if test is None:
        fail(f"the test program did not finish within {timeout} s\nserver log:\n{log}")
    if test.returncode != 0:
        fail(f"the test program failed (exit {test.returncode})\nserver log:\n{log}")
    if code != 0:
        fail(f"sigil serve exited with {code} after SIGTERM\nserver log:\n{log}")


def browser_test_with_token(sigil_path, script, name):
    """Starts `sigil serve` (embedded defaults, a fresh data folder) with a random SIGIL_API_TOKEN, runs the
    browser test tests/e2e/<script> with --url and --token against it (Debian's Chromium via Playwright),
    and checks that the token never appears in the server's output. Exits 1 with `name: ...` on failure."""
    import secrets
    import tempfile

    def fail(message):
        print(f"{name}: {message}", file=sys.stderr)
        sys.exit(1)

    sigil = os.path.abspath(sigil_path)
    need_browser(fail)
    token = secrets.token_urlsafe(16)
    with tempfile.TemporaryDirectory(prefix=f"sigil-{name}-") as tmp:
        env = dict(os.environ, SIGIL_API_TOKEN=token)
        server = SigilServe(sigil, ["--data", os.path.join(tmp, "data"), "--listen", "127.0.0.1:0"], cwd=tmp,
                            env=env)
        if not server.wait_listening():
            server.stop(signal.SIGKILL)
            fail("sigil serve did not start:\n" + server.stderr_text())
        run_against(server, ["node", os.path.join(E2E, script), "--url", server.url + "/", "--token", token], E2E,
                    300, fail)
        if token in server.stderr_text() or any(token in line for line in server.out):
            fail("the token appears in the server's output")
    print(f"{name}: passed")
