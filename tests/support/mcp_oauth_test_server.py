#!/usr/bin/env python3
"""A tiny MCP server that wants OAuth, with its own authorization server, for sigil's OAuth client tests.

Usage: mcp_oauth_test_server.py PORT LOG MODE   (serves http://127.0.0.1:PORT/mcp; appends one JSON line per
request to LOG: method, path, query, headers, body)

MODE:
- credentials: the authorization server offers only client_credentials with client_secret_post; the
  client must send client_id "cid" and client_secret "sec" in the body, and resource = the server's URL.
- code: the authorization code flow with dynamic registration; /authorize redirects at once with a code,
  /token checks the PKCE S256 verifier against the challenge and answers a refresh token too (not to
  client_credentials).
- mismatch: the protected-resource metadata names another resource.
- login: /authorize answers a login page (200) instead of redirecting.
- private-as: the protected-resource metadata names an authorization server on 127.0.0.2 (loopback, and
  not the server's host), where nothing listens.
- xaa: cross-app access: /idp/token exchanges the ID token "the-id-token" (audience the issuer, resource the
  server's URL) for the ID-JAG "the-jag"; the authorization server takes it only as a jwt-bearer grant with
  client_secret_basic for "cid" / "sec".

/mcp answers 401 with `WWW-Authenticate: Bearer resource_metadata=...` unless the request carries the token
the token endpoint gave; `POST /expire` makes that token invalid (a refresh token still works).
"""
import base64
import hashlib
import json
import sys
import urllib.parse
from http.server import ThreadingHTTPServer

from http_test_server import JsonLog, QuietHandler

PORT = int(sys.argv[1])
LOG = sys.argv[2]
MODE = sys.argv[3]
BASE = f"http://127.0.0.1:{PORT}"
state = {"challenge": None, "tokens": set(), "n": 0}
log = JsonLog(LOG)  # log(entry): one JSON line per request


class Handler(QuietHandler):
    def answer(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self, body):
        url = urllib.parse.urlsplit(self.path)
        log({"method": self.command, "path": url.path, "query": dict(urllib.parse.parse_qsl(url.query)),
             "headers": dict(self.headers), "body": body})
        return url

    def do_GET(self):
        url = self.record("")
        if url.path == "/.well-known/oauth-protected-resource/mcp":
            resource = "https://elsewhere.example/mcp" if MODE == "mismatch" else BASE + "/mcp"
            as_url = f"http://127.0.0.2:{PORT}/as" if MODE == "private-as" else BASE + "/as"
            return self.answer(200, {"resource": resource, "authorization_servers": [as_url]})
        if url.path == "/.well-known/oauth-authorization-server/as":
            meta = {"issuer": BASE + "/as", "authorization_endpoint": BASE + "/as/authorize",
                    "token_endpoint": BASE + "/as/token", "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"]}
            if MODE == "xaa":
                meta["grant_types_supported"] = ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
                meta["token_endpoint_auth_methods_supported"] = ["client_secret_basic"]
            elif MODE == "credentials":
                meta["grant_types_supported"] = ["client_credentials"]
                meta["token_endpoint_auth_methods_supported"] = ["client_secret_post"]
            else:
                meta["grant_types_supported"] = ["authorization_code", "refresh_token"]
                meta["token_endpoint_auth_methods_supported"] = ["none"]
                meta["registration_endpoint"] = BASE + "/as/register"
            return self.answer(200, meta)
        if url.path == "/as/authorize":
            q = dict(urllib.parse.parse_qsl(url.query))
            if MODE == "login":
                return self.answer(200, {"page": "please sign in"})
            state["challenge"] = q.get("code_challenge")
            target = q["redirect_uri"] + "?" + urllib.parse.urlencode({"code": "the-code", "state": q["state"]})
            return self.answer(302, None, [("Location", target)])
        if url.path == "/mcp":
            return self.answer(405)
        return self.answer(404, {"error": "not_found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode()
        url = self.record(raw)
        if url.path == "/expire":
            state["tokens"].clear()
            return self.answer(200, {})
        if url.path == "/as/register":
            return self.answer(201, {"client_id": "registered-client", "token_endpoint_auth_method": "none"})
        if url.path == "/idp/token":
            form = dict(urllib.parse.parse_qsl(raw))
            ok = (form.get("grant_type") == "urn:ietf:params:oauth:grant-type:token-exchange"
                  and form.get("subject_token") == "the-id-token"
                  and form.get("subject_token_type") == "urn:ietf:params:oauth:token-type:id_token"
                  and form.get("requested_token_type") == "urn:ietf:params:oauth:token-type:id-jag"
                  and form.get("audience") == BASE + "/as" and form.get("resource") == BASE + "/mcp")
            if not ok:
                return self.answer(400, {"error": "invalid_request"})
            return self.answer(200, {"access_token": "the-jag", "token_type": "N_A",
                                     "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"})
        if url.path == "/as/token":
            form = dict(urllib.parse.parse_qsl(raw))
            if form.get("resource") != BASE + "/mcp" and "assertion" not in form:
                return self.answer(400, {"error": "invalid_target"})
            grant = form.get("grant_type")
            ok = False
            if grant == "client_credentials":
                ok = form.get("client_id") == "cid" and form.get("client_secret") == "sec"
            elif grant == "authorization_code":
                verifier = form.get("code_verifier", "")
                digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
                ok = form.get("code") == "the-code" and digest.decode() == state["challenge"]
            elif grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
                basic = "Basic " + base64.b64encode(b"cid:sec").decode()
                ok = form.get("assertion") == "the-jag" and self.headers.get("Authorization") == basic
            elif grant == "refresh_token":
                ok = form.get("refresh_token") == "the-refresh-token"
            if not ok:
                return self.answer(400, {"error": "invalid_grant"})
            state["n"] += 1
            token = f"token-{state['n']}"
            state["tokens"].add(token)
            answer = {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
            if grant != "client_credentials":
                answer["refresh_token"] = "the-refresh-token"
            return self.answer(200, answer)
        if url.path == "/mcp":
            auth = self.headers.get("Authorization", "")
            if not auth.startswith("Bearer ") or auth[7:] not in state["tokens"]:
                challenge = f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
                return self.answer(401, {"error": "invalid_token"}, [("WWW-Authenticate", challenge)])
            msg = json.loads(raw)
            if "id" not in msg:
                return self.answer(202)
            if msg["method"] == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "oauth-test", "version": "1"}}
            elif msg["method"] == "tools/list":
                result = {"tools": [{"name": "who", "inputSchema": {"type": "object"}}]}
            elif msg["method"] == "tools/call":
                result = {"content": [{"type": "text", "text": "authorized"}]}
            else:
                return self.answer(200, {"jsonrpc": "2.0", "id": msg["id"],
                                         "error": {"code": -32601, "message": "no such method"}})
            return self.answer(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})
        return self.answer(404, {"error": "not_found"})


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
