#!/usr/bin/env python3
"""A Bot API server that says yes: every POST /bot<token>/<method> answers {"ok":true,"result":…} (a message
with a new message_id for send*/edit*, true otherwise) and is logged (path, JSON body). For the tests of
what BotApi does before a call is made (its pace), where the answers do not matter.

Usage: bot_api_test_server.py PORT LOG
"""
import itertools
import json
import sys
from http.server import ThreadingHTTPServer

from http_test_server import JsonLog, QuietHandler

PORT = int(sys.argv[1])
log = JsonLog(sys.argv[2])
ids = itertools.count(1)


class Handler(QuietHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        log({"path": self.path, "body": body})
        method = self.path.rsplit("/", 1)[-1]
        result = {"message_id": next(ids)} if method.startswith(("send", "edit")) else True
        data = json.dumps({"ok": True, "result": result}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
