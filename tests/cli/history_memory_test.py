#!/usr/bin/env python3
"""One conversation's history cannot exhaust the gateway's memory (docs/security.md, threat model).

Usage: history_memory_test.py PATH_TO_SIGIL   (run by ctest as cli.history_memory_test)

Against `sigil serve` (the real process): 50 messages of 1 MiB are posted into one conversation, then 40
WebSocket clients connect to it at once and read nothing for a while (the slowest readers a server can
have), then each reads its greeting. Before the greeting was bounded, every connect built a 52 MB greeting
(40 connects peaked at 2.7 GB). Checked: each greeting is at most 300 KB and says that more history exists,
and the server's peak memory (VmHWM) grows by less than BOUND_MIB during the connects. The figures are
printed. The server runs with a small ASan quarantine so that freed memory counts as freed.
"""
import base64
import http.client
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import time

from sigil_serve import SigilServe, write_toml

MESSAGES = 50
MESSAGE_BYTES = 1 << 20
CONNECTS = 40
GREETING_LIMIT = 300 * 1024
BOUND_MIB = 64

CONFIG = """
[server]
listen = "127.0.0.1:0"
messages_per_minute = 0
max_body = 2097152

[store]
data = "{data}"

[model]
replay = "{replay}"
tokens_per_second = 0
"""


def fail(message):
    print(f"history_memory_test: {message}", file=sys.stderr)
    sys.exit(1)


def status_kib(pid, field):
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def post(port, text):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("POST", "/v1/conversations/big/messages", json.dumps({"text": text, "user": "web"}),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    if resp.status != 200 or b"event: end" not in body:
        fail(f"POST answered {resp.status}: {body[:300]!r}")


def ws_connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=120)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /v1/ws?conversation=big&user=web HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
               f"Sec-WebSocket-Key: {key}\r\n\r\n").encode())
    return s


def recv_exact(s, n, buf):
    while len(buf) < n:
        chunk = s.recv(65536)
        if not chunk:
            fail("the server closed a WebSocket")
        buf += chunk
    return buf


def read_greeting(s):
    """The first text frame after the 101 answer (the hello frame), as bytes."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf = recv_exact(s, len(buf) + 1, buf)
    head, buf = buf.split(b"\r\n\r\n", 1)
    if not head.startswith(b"HTTP/1.1 101"):
        fail(f"upgrade refused: {head[:200]!r}")
    buf = recv_exact(s, 2, buf)
    length = buf[1] & 0x7F
    offset = 2
    if length == 126:
        buf = recv_exact(s, 4, buf)
        length = int.from_bytes(buf[2:4], "big")
        offset = 4
    elif length == 127:
        buf = recv_exact(s, 10, buf)
        length = int.from_bytes(buf[2:10], "big")
        offset = 10
    buf = recv_exact(s, offset + length, buf)
    return buf[offset:offset + length]


def main():
    if len(sys.argv) < 2:
        fail("usage: history_memory_test.py PATH_TO_SIGIL")
    sigil = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sigil-history-memory-")
    try:
        replay = os.path.join(tmp, "replay.jsonl")
        with open(replay, "w", encoding="utf-8") as f:
            f.write(json.dumps({"reply": "Noted."}) + "\n")
        config = write_toml(tmp, CONFIG.format(data=os.path.join(tmp, "data"), replay=replay))
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=8").lstrip(":")
        server = SigilServe(sigil, ["--config", config], cwd=tmp, env=env, log_path=os.path.join(tmp, "serve.log"))
        if not server.wait_listening():
            server.stop(signal.SIGKILL)
            fail("no listening line:\n" + server.stderr_text())
        pid = server.proc.pid
        for i in range(MESSAGES):
            post(server.port, f"{i:03d}" + "x" * (MESSAGE_BYTES - 3))
        time.sleep(0.5)
        before = status_kib(pid, "VmHWM")
        rss_before = status_kib(pid, "VmRSS")
        sockets = [ws_connect(server.port) for _ in range(CONNECTS)]
        time.sleep(3)  # nobody reads: every greeting waits in the server
        peak = status_kib(pid, "VmHWM")
        sizes = []
        for s in sockets:
            hello = json.loads(read_greeting(s))
            if hello.get("type") != "hello":
                fail(f"first frame is not hello: {str(hello)[:200]}")
            if not hello.get("history_more"):
                fail("the greeting does not say that more history exists")
            sizes.append(len(json.dumps(hello)))
        for s in sockets:
            s.close()
        code = server.stop()
        grew_mib = (peak - before) / 1024
        print(f"history_memory_test: {MESSAGES} x {MESSAGE_BYTES >> 20} MiB stored; {CONNECTS} connects: "
              f"greeting {max(sizes)} bytes at most; peak RSS {before / 1024:.0f} -> {peak / 1024:.0f} MiB "
              f"(+{grew_mib:.0f} MiB; RSS before the connects {rss_before / 1024:.0f} MiB)")
        if max(sizes) > GREETING_LIMIT:
            fail(f"a greeting of {max(sizes)} bytes (limit {GREETING_LIMIT})")
        if grew_mib >= BOUND_MIB:
            fail(f"peak memory grew by {grew_mib:.0f} MiB during the connects (bound {BOUND_MIB} MiB)")
        if code != 0:
            fail(f"sigil serve exited with {code} after SIGTERM:\n{server.stderr_text()}")
        print("history_memory_test: 1 passed, 0 failed")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
