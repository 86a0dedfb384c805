#!/usr/bin/env python3
"""Pictures end to end through `sigil serve` (issue 13, item 6), against a fake OpenAI-compatible model server.

Usage: images_test.py PATH_TO_SIGIL  (run by ctest as cli.images_test)

The fake upstream (real HTTP on loopback) answers POST /v1/chat/completions with scripted SSE replies and
POST /v1/images/generations with a real PNG in b64_json, and records every request.

1. createAIImage: a reply `Here it is: <createAIImage>{"prompt":"a red fox"}</createAIImage> Enjoy.` through
   POST /v1/chat/completions (not streamed) brings a file delivery of kind image with a /media/ URL whose
   bytes are the PNG, and the text around it without markup; the upstream got exactly one images request
   ({model, prompt, n, size, response_format}); the same through the web chat's SSE API, and the history
   keeps the picture.
2. viewImage: a reply `<viewImage>pic.png</viewImage>` (a file in the send-file folder) makes the next
   upstream chat request carry the picture as an OpenAI vision content part
   ({"type":"image_url","image_url":{"url":"data:image/png;base64,…"}}) beside the results text.
3. A URL on loopback is refused by the SSRF guard, with the reason in the results message the model gets.
4. [images] names a server of its own (url, model, and the key from SIGIL_IMAGES_KEY over the file's):
   the picture is asked there with that key, and the chat model's server gets no images request.
"""
import base64
import hashlib
import json
import os
import signal
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sigil_serve import Checks, SigilServe, file_folder, request, serve_toml, sse_events, write_toml

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


CHECKS = Checks("images_test")
fail, check = CHECKS.fail, CHECKS.check


class Upstream:
    """The fake model server: chat replies are taken in order from `replies` (then "Done."; a callable is given
    the request and returns the reply) unless one of `matches` applies, pictures are PNG. Shared with the channel tests (telegram_model_test.py,
    discord_model_test.py)."""

    def __init__(self):
        self.replies = []
        self.chat_requests = []
        # (text, reply): a request whose last message holds the text gets that reply, apart from the script
        # (a turn that comes at its own time, like a scheduled task's); it is kept in matched_requests.
        self.matches = []
        self.matched_requests = []
        self.image_requests = []
        self.image_auth = []  # each images request's Authorization header
        self.lock = threading.Lock()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                if self.path.endswith("/images/generations"):
                    with upstream.lock:
                        upstream.image_requests.append(body)
                        upstream.image_auth.append(self.headers.get("Authorization", ""))
                    data = json.dumps({"created": 1, "data": [{"b64_json": base64.b64encode(PNG).decode()}]})
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data.encode())
                    return
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                with upstream.lock:
                    last = json.dumps(body.get("messages", [])[-1:])
                    reply = next((r for key, r in upstream.matches if key in last), None)
                    if reply is not None:
                        upstream.matched_requests.append(body)
                    else:
                        upstream.chat_requests.append(body)
                        reply = upstream.replies.pop(0) if upstream.replies else "Done."
                if callable(reply):  # a reply made from the request (what the model was told)
                    reply = reply(body)
                chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": reply}}]},
                          {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
                data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data.encode())))
                self.end_headers()
                self.wfile.write(data.encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def model_toml(self, vision=False, images=True):
        """The [model] section of sigil.toml for this server: chat, no tools, DALL-E 3 pictures (IMAGES)."""
        return (f'[model]\nurl = "{self.url}"\nname = "chat-model"\ntools = "off"\nembeddings_model = ""\n' +
                ('image_model = "dall-e-3"\n' if images else "") + ("vision = true\n" if vision else ""))

    def script(self, *replies):
        with self.lock:
            self.replies = list(replies)
            self.chat_requests.clear()
            self.image_requests.clear()


def check_picture(base, deliveries, label):
    pictures = [d for d in deliveries if d.get("op") == "file"]
    check(len(pictures) == 1, f"{label}: one file delivery ({deliveries})")
    d = pictures[0]
    check(d.get("kind") == "image", f"{label}: it is an image: {d.get('kind')}")
    url = d.get("url", "")
    check(url.startswith("/media/"), f"{label}: it has a /media/ URL: {url}")
    got = request(base + url)
    check(got == PNG and hashlib.sha256(got).hexdigest() == d.get("sha256"), f"{label}: it downloads as the PNG")


def image_parts(chat_request):
    parts = []
    for m in chat_request.get("messages", []):
        if isinstance(m.get("content"), list):
            parts += [p for p in m["content"] if p.get("type") == "image_url"]
    return parts


def main():
    sigil = os.path.abspath(sys.argv[1])
    upstream = Upstream()
    with tempfile.TemporaryDirectory(prefix="sigil-images-") as tmp:
        files = file_folder(tmp, [("pic.png", PNG)])
        config = write_toml(tmp, serve_toml(tmp, rate_limited=False) +
                                 upstream.model_toml(vision=True) +
                                 f'[actions]\nfile_roots = ["{files}"]\n')
        server = SigilServe(sigil, ["--config", config], cwd=tmp, log_path=os.path.join(tmp, "serve.log"))
        if not server.wait_listening():
            server.stop(signal.SIGKILL)
            fail("sigil serve did not start:\n" + server.stderr_text())
        try:
            base = server.url
            reply = 'Here it is: <createAIImage>{"prompt":"a red fox"}</createAIImage> Enjoy.'

            # 1. createAIImage through the OpenAI-compatible endpoint.
            upstream.script(reply)
            answer = json.loads(request(base + "/v1/chat/completions",
                                        {"model": "sigil", "messages": [{"role": "user", "content": "draw"}]}))
            text = answer["choices"][0]["message"]["content"]
            check(text == "Here it is:  Enjoy." or text == "Here it is: Enjoy.", f"completions: clean text: {text!r}")
            report = answer["sigil"]
            check_picture(base, [d for c in report["calls"] for d in c["deliveries"]], "completions")
            check(len(upstream.image_requests) == 1, f"one images request ({len(upstream.image_requests)})")
            asked = upstream.image_requests[0]
            check(asked == {"model": "dall-e-3", "prompt": "a red fox", "n": 1, "size": "1024x1024",
                            "response_format": "b64_json"}, f"the images request as documented: {asked}")

            # ... and through the web chat's API, whose history keeps it.
            upstream.script(reply)
            raw = request(base + "/v1/conversations/pics/messages", {"text": "draw", "user": "u1"})
            check_picture(base, [d for n, d in sse_events(raw) if n == "delivery"], "web chat SSE")
            history = json.loads(request(base + "/v1/conversations/pics/messages?user=u1"))
            check_picture(base, history.get("deliveries", []), "web chat history")

            # 2. viewImage of a file in the send-file folder: the next upstream call sees it.
            upstream.script("Let me look. <viewImage>pic.png</viewImage> (guess: a cat)", "It is a red pixel.")
            answer = json.loads(request(base + "/v1/chat/completions",
                                        {"model": "sigil", "messages": [{"role": "user", "content": "look"}]}))
            check(len(upstream.chat_requests) == 2, f"two upstream calls ({len(upstream.chat_requests)})")
            check(not image_parts(upstream.chat_requests[0]), "the first call has no picture")
            parts = image_parts(upstream.chat_requests[1])
            want = "data:image/png;base64," + base64.b64encode(PNG).decode()
            check(len(parts) == 1 and parts[0]["image_url"]["url"] == want,
                  "the second call carries the picture as an image_url content part")
            last = upstream.chat_requests[1]["messages"][-1]
            check(last["role"] == "user" and isinstance(last["content"], list) and
                  last["content"][0]["type"] == "text" and "viewImage" not in json.dumps(answer["choices"]),
                  "the picture rides with the results message, and no markup reaches the user")
            text = answer["choices"][0]["message"]["content"]
            check("guess" not in text and "It is a red pixel." in text, f"interrupting: {text!r}")

            # 3. A loopback URL is refused by the SSRF guard, and the model hears why.
            upstream.script("<viewImage>http://127.0.0.1:9/x.png</viewImage>", "I cannot see it.")
            request(base + "/v1/chat/completions",
                    {"model": "sigil", "messages": [{"role": "user", "content": "look"}]})
            results = upstream.chat_requests[1]["messages"][-1]["content"]
            check(isinstance(results, str) and "refused" in results and "loopback" in results,
                  f"the SSRF refusal goes back to the model: {results!r}")
        finally:
            server.stop_or_fail(fail)
    try:
        images_server_of_its_own(sigil, upstream)
    finally:
        upstream.server.shutdown()
    print("images_test: passed")


def images_server_of_its_own(sigil, upstream):
    """Part 4: [images] url, key and model; the key from the environment wins over the file's."""
    pictures = Upstream()
    with tempfile.TemporaryDirectory(prefix="sigil-images-own-") as tmp:
        config = write_toml(tmp, serve_toml(tmp, rate_limited=False) + upstream.model_toml(images=False) +
                            f'[images]\nurl = "{pictures.url}"\nkey = "file-key"\nmodel = "gpt-image-1"\n'
                            'size = "1536x1024"\n')
        env = dict(os.environ, SIGIL_IMAGES_KEY="env-key")
        server = SigilServe(sigil, ["--config", config], cwd=tmp, env=env,
                            log_path=os.path.join(tmp, "serve.log"))
        try:
            if not server.wait_listening():
                fail("sigil serve did not start:\n" + server.stderr_text())
            upstream.script('<createAIImage>{"prompt":"a blue owl"}</createAIImage>')
            answer = json.loads(request(server.url + "/v1/chat/completions",
                                        {"model": "sigil", "messages": [{"role": "user", "content": "draw"}]}))
            check_picture(server.url, [d for c in answer["sigil"]["calls"] for d in c["deliveries"]], "[images]")
            # (GPT image models answer base64 always and refuse response_format: it is left out for them.)
            check(pictures.image_requests == [{"model": "gpt-image-1", "prompt": "a blue owl", "n": 1,
                                               "size": "1536x1024"}],
                  f"[images]: the picture asked of its own server: {pictures.image_requests}")
            check(pictures.image_auth == ["Bearer env-key"], f"[images]: with SIGIL_IMAGES_KEY: {pictures.image_auth}")
            check(upstream.image_requests == [], "[images]: the chat model's server was not asked for pictures")
        finally:
            pictures.server.shutdown()
            server.stop_or_fail(fail)


if __name__ == "__main__":
    main()
