#!/usr/bin/env python3
"""A tiny MCP server over stdio (newline-delimited JSON-RPC) for sigil's MCP client tests.

Not a test itself. It does what the reference server cannot be made to do on demand:
- tools/list in two pages (nextCursor), so the client must follow the cursor;
- `crash` exits in the middle of the call (no answer), so the client must report it and restart;
- `pid` answers with its process id, so a test can tell a restarted server from the first one;
- `slow` never answers by itself, so a test can cancel it or let it time out;
- `ping_me` first sends a ping request to the client and answers only once the client answered it;
- `fail` answers isError: true;
- `grow` (not listed) adds a tool `late` to the second page and sends notifications/tools/list_changed
  before it answers, so the client must list the tools again;
- `ask` sends an elicitation/create request (form mode with defaults; `{"kind": "url"}`: URL mode;
  `{"kind": "no-default"}`: a required field without a default) and answers with what the client answered.
Every message it receives is appended, one JSON line each, to the file named by MCP_TEST_LOG (if set).
"""
import json
import os
import sys
import threading

LOG = os.environ.get("MCP_TEST_LOG")
out_lock = threading.Lock()
waiting_ping = {}
waiting_answer = {}
ASK_SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string", "default": "Ann", "minLength": 1},
    "age": {"type": "integer", "default": 7, "minimum": 0},
    "color": {"type": "string", "oneOf": [{"const": "red", "title": "Red"}, {"const": "blue", "title": "Blue"}],
              "default": "blue"},
    "note": {"type": "string"}},
    "required": ["name", "age"]}

PAGE1 = [
    {"name": "echo", "description": "Echoes the message back.\nSecond line.",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"},
                                                      "times": {"type": "integer"}},
                     "required": ["message"]}},
    {"name": "crash", "description": "Exits mid-call.", "inputSchema": {"type": "object"}},
    {"name": "get-pid", "description": "The server's process id.", "inputSchema": {"type": "object"}},
]
PAGE2 = [
    {"name": "slow", "description": "Never answers.", "inputSchema": {"type": "object"}},
    {"name": "ping_me", "description": "Pings the client first.", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "Reports an error.", "inputSchema": {"type": "object"}},
    {"name": "ask", "description": "Asks the user by elicitation.", "inputSchema": {"type": "object"}},
]


def send(message):
    with out_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def text_result(rid, text, is_error=False):
    result = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def call(rid, params):
    name = params.get("name")
    args = params.get("arguments", {})
    if name == "echo":
        text_result(rid, "echo: " + args.get("message", "") * int(args.get("times", 1)))
    elif name == "crash":
        os._exit(3)
    elif name == "get-pid":
        text_result(rid, str(os.getpid()))
    elif name == "slow":
        pass  # the answer never comes
    elif name == "ping_me":
        done = threading.Event()
        waiting_ping["s1"] = done
        send({"jsonrpc": "2.0", "id": "s1", "method": "ping"})

        def later():
            ok = done.wait(10)
            text_result(rid, "pong received" if ok else "no pong")
        threading.Thread(target=later, daemon=True).start()
    elif name == "ask":
        kind = args.get("kind", "form")
        params = {"message": "Who are you?", "requestedSchema": json.loads(json.dumps(ASK_SCHEMA))}
        if kind == "url":
            params = {"mode": "url", "message": "Sign in", "url": "https://example.com/x", "elicitationId": "e1"}
        elif kind == "no-default":
            params["requestedSchema"]["required"].append("note")
        box = {"done": threading.Event()}
        waiting_answer["e-" + str(rid)] = box
        send({"jsonrpc": "2.0", "id": "e-" + str(rid), "method": "elicitation/create", "params": params})

        def later():
            ok = box["done"].wait(10)
            text_result(rid, json.dumps(box.get("answer"), sort_keys=True) if ok else "no answer")
        threading.Thread(target=later, daemon=True).start()
    elif name == "fail":
        text_result(rid, "it failed on purpose", is_error=True)
    elif name == "grow":
        PAGE2.append({"name": "late", "description": "Added while running.", "inputSchema": {"type": "object"}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text_result(rid, "grown")
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "unknown tool " + str(name)}})


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if LOG:
            with open(LOG, "a") as f:
                f.write(line + "\n")
        m = json.loads(line)
        method, rid = m.get("method"), m.get("id")
        if method is None:  # an answer to our ping or elicitation
            if rid in waiting_ping and "result" in m:
                waiting_ping.pop(rid).set()
            elif rid in waiting_answer:
                box = waiting_answer.pop(rid)
                box["answer"] = m.get("result", m.get("error"))
                box["done"].set()
        elif method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "sigil-test", "version": "1"}}})
        elif method == "tools/list":
            cursor = (m.get("params") or {}).get("cursor")
            if cursor is None:
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": PAGE1, "nextCursor": "page-2"}})
            else:
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": PAGE2}})
        elif method == "tools/call":
            call(rid, m.get("params", {}))
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}})


main()
