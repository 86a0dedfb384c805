#!/usr/bin/env python3
"""MCP over Streamable HTTP with OAuth, end to end in the gateway: `sigil serve` with
[mcp.servers.remote] url + oauth = { client_id, client_secret_env } against tests/support/mcp_oauth_test_server.py
(credentials mode: an MCP server that answers 401 until it gets a token of its authorization server, which
offers only client_credentials with client_secret_post).

Usage: mcp_oauth_test.py PATH_TO_SIGIL  (run by ctest as cli.mcp_oauth_test)

What it shows: the server connects at start (discovery and the token request happen at the first 401), a
reply's <mcp_remote_who>{}</mcp_remote_who> calls the tool with the token (its text reaches the model's next
request), the secret came from the environment variable the config names and is nowhere in sigil's output;
and a config whose secret variable is unset stops at start with an error naming the variable.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

from sigil_serve import SigilServe, Tally, replay_serve_toml, sse_turn, write_replay, write_toml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OAUTH_SERVER = os.path.join(ROOT, "tests", "support", "mcp_oauth_test_server.py")
SECRET = "sec"  # what the test server expects; short, so the log check below looks for the whole form body
TALLY = Tally("mcp_oauth_test")
check = TALLY.check


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def text_of(events):
    return "".join(d.get("text", "") for name, d in events if name == "text")


def main():
    sigil = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="sigil-mcp-oauth-") as tmp:
        port = free_port()
        log = os.path.join(tmp, "oauth-server.jsonl")
        server = subprocess.Popen(["python3", OAUTH_SERVER, str(port), log, "credentials"])
        try:
            check(wait_port(port), "the OAuth test server listens")
            write_replay(os.path.join(tmp, "replay.jsonl"),
                         [{"match": "authorized", "reply": "WHO {{result}}"},
                          {"match": "who is it", "reply": "<mcp_remote_who>{}</mcp_remote_who>"},
                          {"reply": "Fallback."}])
            config = write_toml(tmp, replay_serve_toml(tmp) + f"""[mcp.servers.remote]
url = "http://127.0.0.1:{port}/mcp"
oauth = {{ client_id = "cid", client_secret_env = "SIGIL_TEST_MCP_SECRET" }}
""")
            env = dict(os.environ, SIGIL_TEST_MCP_SECRET=SECRET)
            serve = SigilServe(sigil, ["--config", config], cwd=tmp, env=env,
                               log_path=os.path.join(tmp, "serve.log"))
            if not serve.wait_listening():
                serve.stop(signal.SIGKILL)
                check(False, "sigil serve starts:\n" + serve.stderr_text())
            else:
                try:
                    started = serve.stderr_text()
                    check("mcp-connected server=remote tools=1" in started, f"the OAuth server connected: {started[-600:]!r}")
                    ev, _ = sse_turn(serve.port, "oauth", "who is it")
                    check(text_of(ev) == "WHO authorized", f"the tool ran with the token: {text_of(ev)!r}")
                finally:
                    serve.stop()
                output = serve.stderr_text()
                check("client_secret=" + SECRET not in output and "Bearer token-" not in output,
                      "neither the secret nor the token is in sigil's output")
            tokens = [json.loads(line) for line in open(log) if '"/as/token"' in line]
            check(len(tokens) == 1 and "client_secret=sec" in tokens[0]["body"],
                  f"one token request, the secret from the environment in its body: {len(tokens)} requests")

            r = subprocess.run([sigil, "serve", "--config", config], cwd=tmp, capture_output=True, text=True,
                               timeout=60, env={k: v for k, v in os.environ.items() if k != "SIGIL_TEST_MCP_SECRET"})
            check(r.returncode == 2 and "client_secret_env names SIGIL_TEST_MCP_SECRET" in r.stderr,
                  f"an unset secret variable stops the start, named: {r.returncode} {r.stderr[-300:]!r}")
        finally:
            server.kill()
            server.wait()
    TALLY.end()


if __name__ == "__main__":
    main()
