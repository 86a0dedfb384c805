#!/usr/bin/env python3
"""MCP end to end: a real `sigil serve` whose replayed model replies call tools on real MCP servers over stdio.

Usage: mcp_test.py PATH_TO_SIGIL  (run by ctest as cli.mcp_test)

Servers: the official reference server @modelcontextprotocol/server-everything (tests/e2e/node_modules, from
scripts/npm-deps) and tests/support/mcp_test_server.py (crashes on demand). What it shows:
- a server that cannot start is named in the start-up lines and not taught (the prompt: tests/catalog);
- <mcp_everything_echo>{"message":"hi"}</mcp_everything_echo> in a reply calls the tool: its text is in the
  model's next request (the replay line matching "Echo: hi" answers with it) and no markup reaches the user;
- the same tool called as a native tool call (`mcp` with server, tool, arguments) reaches the server too, and
  so does a native call of the tool's own tool, `mcp_everything_echo` with the tool's arguments;
- arguments that break the tool's input schema: the model gets the checker's error, no call is made;
- a long-running tool with progress notifications outlives the per-call time-out (progress restarts it);
- a turn cancelled (the client hangs up) during a long call sends notifications/cancelled;
- a server that crashes mid-call: a clear error for the model, and the next call restarts it.
"""
import http.client
import json
import os
import shutil
import signal
import sqlite3
import sys
import tempfile
import time

from sigil_serve import SigilServe, Tally, sse_turn, write_toml

SIGIL = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EVERYTHING = os.path.join(ROOT, "tests", "e2e", "node_modules", "@modelcontextprotocol", "server-everything",
                          "dist", "index.js")
TEST_SERVER = os.path.join(ROOT, "tests", "support", "mcp_test_server.py")
TIMEOUT = 120
TALLY = Tally("mcp_test")
check, failures = TALLY.check, TALLY.failures


# First matching line wins: the answers to results come before the lines that start calls.
REPLAY = [
    {"match": "Echo: hi", "reply": "The tool said: {{result}}"},
    {"match": "must be string, not an integer", "reply": "SCHEMA-ERROR-SEEN"},
    {"match": "Long running operation completed", "reply": "LONG-DONE {{result}}"},
    {"match": "the server exited during the call", "reply": "CRASH-SEEN"},
    {"match": "call echo", "reply": "Calling. <mcp_everything_echo>{\"message\":\"hi\"}</mcp_everything_echo>"},
    {"match": "bad arguments", "reply": "<mcp_everything_echo>{\"message\": 5}</mcp_everything_echo>"},
    {"match": "long one", "reply": "<mcp_everything_trigger-long-running-operation>{\"duration\": 4, \"steps\": 8}"
                                   "</mcp_everything_trigger-long-running-operation>"},
    {"match": "endless one", "reply": "Working. <mcp_everything_trigger-long-running-operation>{\"duration\": 60, "
                                      "\"steps\": 60}</mcp_everything_trigger-long-running-operation>"},
    {"match": "Echo: as a tool call", "reply": "TOOL-CALL-SEEN {{result}}"},
    {"match": "Echo: its own tool", "reply": "OWN-TOOL-SEEN {{result}}"},
    {"match": "own tool", "reply": "", "tool_calls": [{"id": "c2", "name": "mcp_everything_echo", "arguments": {
        "message": "its own tool"}}]},
    {"match": "native tool", "reply": "", "tool_calls": [{"id": "c1", "name": "mcp", "arguments": {
        "server": "everything", "tool": "echo", "arguments": {"message": "as a tool call"}}}]},
    {"match": "crash it", "reply": "<mcp_crashy_crash>{}</mcp_crashy_crash>"},
    {"match": "which pid", "reply": "<mcp_crashy_get-pid>{}</mcp_crashy_get-pid>"},
    # The pid's result line is "[1] mcp: ok: 12345" (digits do not count in a match): after every other line.
    {"match": "mcp: ok:", "reply": "PID {{result}}"},
    {"reply": "Fallback."},
]


def write_config(tmp):
    with open(os.path.join(tmp, "replay.jsonl"), "w") as f:
        for entry in REPLAY:
            f.write(json.dumps(entry) + "\n")
    config = write_toml(tmp, f"""# written by tests/cli/mcp_test.py
[server]
messages_per_minute = 0

[model]
replay = "replay.jsonl"
tokens_per_second = 0

[mcp.servers.everything]
command = ["node", {json.dumps(EVERYTHING)}, "stdio"]
timeout_seconds = 2   # the long-running call (4 s) lives on its progress notifications

[mcp.servers.crashy]
command = ["python3", {json.dumps(TEST_SERVER)}]
env = {{ MCP_TEST_LOG = {json.dumps(os.path.join(tmp, "crashy.log"))} }}

[mcp.servers.broken]
command = ["/nonexistent/mcp-server"]
""")
    return config


def hang_up_later(port, conversation, text, seconds):
    """Starts a turn, reads its stream until the first text event, waits `seconds`, then hangs up."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    conn.request("POST", f"/v1/conversations/{conversation}/messages", json.dumps({"text": text, "user": "web"}),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    while True:
        line = resp.fp.readline()
        if not line or line.startswith(b"event: text") or line.startswith(b"event:text"):
            break
    time.sleep(seconds)
    resp.close()
    conn.close()


def text_of(events):
    return "".join(e[1]["text"] for e in events if e[0] == "text")


def stored(data, conversation):
    """The conversation's stored messages (role, text), results messages included (the HTTP history shows
    only what the user saw)."""
    db = sqlite3.connect(os.path.join(data, "sigil.db"), timeout=30)
    try:
        return db.execute("SELECT role, text FROM messages WHERE conversation_id = ? ORDER BY id",
                          (conversation,)).fetchall()
    finally:
        db.close()


def wait_for(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def main():
    global SIGIL
    SIGIL = os.path.abspath(sys.argv[1])
    if not check(os.path.isfile(EVERYTHING), f"server-everything is installed ({EVERYTHING}; run scripts/npm-deps)"):
        return 1
    tmp = tempfile.mkdtemp(prefix="sigil-mcp-test-")
    data = os.path.join(tmp, "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGIL_")}
    server = SigilServe(SIGIL, ["--config", write_config(tmp), "--listen", "127.0.0.1:0", "--data", data], env=env,
                        log_path=os.path.join(tmp, "serve.log"))
    try:
        if not check(server.wait_listening(TIMEOUT), "sigil serve starts"):
            print(server.stderr_text())
            return 1
        out = "".join(server.out)
        check("sigil: mcp: everything connected" in out, "start-up line: everything connected")
        check("sigil: mcp: crashy connected" in out, "start-up line: crashy connected")
        check("sigil: mcp: broken: " in out and "(not taught)" in out, f"start-up line names the broken server")

        # ---- a tool call from a model reply; its answer is in the model's next request
        ev, _ = sse_turn(server.port, "c1", "please call echo")
        text = text_of(ev)
        check("The tool said: Echo: hi" in text, f"the tool's answer reached the model's next request: {text!r}")
        check("<" not in text and "mcp_" not in text, f"no markup reached the user: {text!r}")
        check(("results", "[1] mcp: ok: Echo: hi") in stored(data, "c1"),
              "the model's next request had the results message with the tool's text")

        # ---- the same tool as a native tool call (the mcp tool: server, tool, arguments)
        ev, _ = sse_turn(server.port, "c6", "a native tool call please")
        check("TOOL-CALL-SEEN" in text_of(ev) and "Echo: as a tool call" in text_of(ev),
              f"a native mcp tool call reaches the server: {text_of(ev)!r}")

        # ---- the tool as a tool of its own (mcp_everything_echo, the tool's arguments as they are)
        ev, _ = sse_turn(server.port, "c7", "call its own tool please")
        check("OWN-TOOL-SEEN" in text_of(ev) and "Echo: its own tool" in text_of(ev),
              f"a native call of mcp_everything_echo reaches the server: {text_of(ev)!r}")

        # ---- arguments that break the schema: the checker's error, no call
        ev, _ = sse_turn(server.port, "c2", "bad arguments please")
        check(text_of(ev) == "SCHEMA-ERROR-SEEN", f"the model got the schema error: {text_of(ev)!r}")
        check(not any("Echo:" in t for _, t in stored(data, "c2")), "no call was made (no echo came back)")
        errors = [t for role, t in stored(data, "c2") if "was not called" in t]
        check(len(errors) == 1 and "arguments.message must be string, not an integer" in errors[0],
              f"the error names the argument: {errors!r}")

        # ---- a long call kept alive by progress (2 s time-out, 4 s call, progress every 0.5 s)
        ev, _ = sse_turn(server.port, "c3", "the long one")
        check("LONG-DONE Long running operation completed" in text_of(ev),
              f"the long-running tool finished past its time-out: {text_of(ev)!r}")
        check(wait_for(lambda: server.stderr_text().count("mcp-progress") >= 4, 5), "progress notifications were logged")

        # ---- a cancelled turn cancels its MCP call: the client hangs up while the 60 s job runs (its tag is
        # parsed within milliseconds of the first text), and notifications/cancelled goes out well before the
        # action's own 30 s time-out would have stopped it
        progress_before = server.stderr_text().count("mcp-progress")
        hang_up_later(server.port, "c4", "the endless one", 2)
        hung_up = time.monotonic()
        check(server.stderr_text().count("mcp-progress") > progress_before, "the endless call was running")
        check(wait_for(lambda: "mcp-cancelled" in server.stderr_text(), 20) and time.monotonic() - hung_up < 20,
              f"the hang-up cancelled the MCP call (notifications/cancelled) "
              f"{time.monotonic() - hung_up:.1f} s after it")

        # ---- a crash mid-call, then a restart
        ev, _ = sse_turn(server.port, "c5", "which pid")
        first_pid = text_of(ev).replace("PID", "").strip()
        check(first_pid.isdigit(), f"crashy answers with its pid: {text_of(ev)!r}")
        ev, _ = sse_turn(server.port, "c5", "crash it")
        check(text_of(ev) == "CRASH-SEEN", f"the model was told the server exited: {text_of(ev)!r}")
        ev, _ = sse_turn(server.port, "c5", "which pid")
        second_pid = text_of(ev).replace("PID", "").strip()
        check(second_pid.isdigit() and second_pid != first_pid, f"the next call restarted it: {first_pid} -> {second_pid}")
        with open(os.path.join(tmp, "crashy.log")) as f:
            inits = sum(1 for line in f if '"initialize"' in line)
        check(inits == 2, f"crashy was initialised twice: {inits}")
    finally:
        code = server.stop(signal.SIGTERM)
        check(code == 0, f"sigil serve stops on SIGTERM (exit {code})")
    if failures:
        print(f"kept for debugging: {tmp}")
        print(server.stderr_text()[-4000:])
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
