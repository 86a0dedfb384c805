#!/usr/bin/env python3
"""A tiny MCP server over Streamable HTTP for sigil's transport tests: what the reference server cannot be
made to do on demand.

Usage: mcp_http_test_server.py PORT LOG   (serves http://127.0.0.1:PORT/mcp; appends one JSON line per
request received to LOG: method, headers, JSON-RPC body, time)

- initialize answers JSON with an Mcp-Session-Id and protocolVersion 2025-06-18 (the client must send that
  back as MCP-Protocol-Version); notifications and answers get 202.
- GET without Last-Event-ID: the standalone stream; a priming event, then `notifications/message` once,
  then it stays open.
- tools/call `drop`: an SSE stream with a priming event (id p-1, retry: 300) that ends without the answer;
  a GET with Last-Event-ID p-1 gets the answer "resumed" (and stays open).
- tools/call `drop-no-id`: an SSE stream that ends without the answer and without any event id.
- tools/call `drop-forever`: every stream, resumed or not, ends without the answer (ids and retry: 50).
- any request carrying `Authorization: Bearer wrong` gets 401 with a WWW-Authenticate challenge.
"""
import json
import sys
import time
from http.server import ThreadingHTTPServer

from http_test_server import JsonLog, QuietHandler

PORT = int(sys.argv[1])
LOG = sys.argv[2]
SESSION = "session-1"
pending = {}  # last event id -> (request id, answer text or None for "never")
log = JsonLog(LOG)  # log(entry): one JSON line per request


class Handler(QuietHandler):
    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Mcp-Session-Id", SESSION)
        self.end_headers()

    def chunk(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def json_answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Mcp-Session-Id", SESSION)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def refused(self):
        if self.headers.get("Authorization") != "Bearer wrong":
            return False
        data = b'{"jsonrpc":"2.0","error":{"code":-32001,"message":"invalid_token"},"id":null}'
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer error="invalid_token", resource_metadata="http://x/prm"')
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return True

    def do_GET(self):
        last = self.headers.get("Last-Event-ID")
        log({"verb": "GET", "headers": dict(self.headers), "time": time.monotonic()})
        if self.refused():
            return
        self.start_sse()
        if last is None:
            self.chunk("id: g-1\ndata: \n\n")
            note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}
            self.chunk("id: g-2\ndata: " + json.dumps(note) + "\n\n")
        elif last in pending:
            rid, text, attempt = pending[last]
            if text is None:
                nxt = "f-%d" % (attempt + 1)
                pending[nxt] = (rid, None, attempt + 1)
                self.chunk("id: %s\nretry: 50\ndata: \n\n" % nxt)
                self.end_chunks()
                return
            answer = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}}
            self.chunk("id: r-1\ndata: " + json.dumps(answer) + "\n\n")
        try:
            while True:  # stays open until the client goes
                time.sleep(0.2)
                self.chunk(": keep-alive\n\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_DELETE(self):
        log({"verb": "DELETE", "headers": dict(self.headers), "time": time.monotonic()})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        log({"verb": "POST", "headers": dict(self.headers), "body": body, "time": time.monotonic()})
        if self.refused():
            return
        method, rid = body.get("method"), body.get("id")
        if method == "initialize":
            self.json_answer({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "sigil-http-test", "version": "1"}}})
        elif method == "tools/list":
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("drop", "drop-no-id", "drop-forever")]
            self.json_answer({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
        elif method == "tools/call":
            name = body["params"]["name"]
            self.start_sse()
            if name == "drop":
                pending["p-1"] = (rid, "resumed", 0)
                self.chunk("id: p-1\nretry: 300\ndata: \n\n")
            elif name == "drop-forever":
                pending["f-0"] = (rid, None, 0)
                self.chunk("id: f-0\nretry: 50\ndata: \n\n")
            self.end_chunks()
        elif rid is None or method is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.json_answer({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}})


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
