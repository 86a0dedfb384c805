#!/usr/bin/env python3
"""Files and voice notes delivered through the HTTP APIs can be downloaded, byte for byte.

Usage: api_media_test.py PATH_TO_SIGIL  (run by ctest as cli.api_media_test)

`sigil serve` with a replay model whose reply sends a file from the send-file folder and a voice note.
For each API path (POST /v1/conversations/{id}/messages as SSE; /v1/chat/completions streamed and not), every
file and voice delivery must carry a /media/ URL (never a server path), and GET of that URL must answer
exactly the bytes: the file's own, and for the voice note an Ogg file whose SHA-256 and size are the ones
the delivery states. Also: the web chat's history keeps those deliveries (GET .../messages "deliveries").
"""
import hashlib
import json
import os
import secrets
import signal
import sys
import tempfile

from sigil_serve import Checks, SigilServe, file_folder, replay_model_toml, request, serve_toml, sse_events, write_toml

REPLY = ('<say>Here is the report <file mode="doc">report.bin</file> and a note.</say> '
         '<voice>This voice note is for the download test.</voice>')


CHECKS = Checks("api_media_test")
fail, check = CHECKS.fail, CHECKS.check


def check_deliveries(base, deliveries, expected_file, label):
    media = [d for d in deliveries if d.get("op") in ("file", "voice")]
    check(sorted(d["op"] for d in media) == ["file", "voice"], f"{label}: a file and a voice delivery ({len(media)})")
    for d in media:
        check("path" not in d, f"{label}: {d['op']} has no server path")
        url = d.get("url")
        check(isinstance(url, str) and url.startswith("/media/"), f"{label}: {d['op']} has a /media/ URL: {url}")
        got = request(base + url)
        check(len(got) == d["size"] and hashlib.sha256(got).hexdigest() == d["sha256"],
              f"{label}: {d['op']} downloads with its stated size and SHA-256")
        if d["op"] == "file":
            check(got == expected_file, f"{label}: the file's bytes are the send-file folder's")
        else:
            check(got[:4] == b"OggS", f"{label}: the voice note is an Ogg file")


def main():
    sigil = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="sigil-api-media-") as tmp:
        payload = bytes(range(256)) * 40 + secrets.token_bytes(999)
        files = file_folder(tmp, [("report.bin", payload)])
        replay = os.path.join(tmp, "replay.jsonl")
        with open(replay, "w", encoding="utf-8") as f:
            f.write(json.dumps({"reply": REPLY}) + "\n")
        config = write_toml(tmp, serve_toml(tmp, rate_limited=False) +
                                 replay_model_toml(replay, 0) +
                                 f'[actions]\nfile_roots = ["{files}"]\n')
        server = SigilServe(sigil, ["--config", config], cwd=tmp)
        if not server.wait_listening():
            server.stop(signal.SIGKILL)
            fail("sigil serve did not start:\n" + server.stderr_text())
        try:
            base = server.url
            raw = request(base + "/v1/conversations/media-1/messages", {"text": "send it", "user": "u1"})
            check_deliveries(base, [d for n, d in sse_events(raw) if n == "delivery"], payload, "SSE messages")

            answer = json.loads(request(base + "/v1/chat/completions",
                                        {"model": "sigil", "messages": [{"role": "user", "content": "send it"}]}))
            report = answer["sigil"]
            check_deliveries(base, [d for c in report["calls"] for d in c["deliveries"]], payload,
                             "completions (not streamed)")

            raw = request(base + "/v1/chat/completions",
                          {"model": "sigil", "stream": True, "messages": [{"role": "user", "content": "send it"}]})
            streamed = [e["sigil"]["delivery"] for _, e in sse_events(raw) if "delivery" in e.get("sigil", {})]
            check_deliveries(base, streamed, payload, "completions (streamed)")

            history = json.loads(request(base + "/v1/conversations/media-1/messages?user=u1"))
            check_deliveries(base, history.get("deliveries", []), payload, "the conversation's history")
            check(all(d.get("turn") for d in history["deliveries"]), "history deliveries name their turn")
        finally:
            server.stop_or_fail(fail)
    print("api_media_test: passed")


if __name__ == "__main__":
    main()
