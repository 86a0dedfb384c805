#!/usr/bin/env python3
"""The official `openai` npm client against `sigil serve`'s POST /v1/chat/completions.

Usage: openai_client_test.py PATH_TO_SIGIL  (run by ctest as cli.openai_client_test)

Starts `sigil serve` on 127.0.0.1:0 with an API token, a fresh data folder and a replay model playing the
replies written below, waits for its "sigil: listening on http://HOST:PORT" line, runs
`node --test tests/e2e/openai_client.test.mjs` against it (the checks are listed there), then stops the
server with SIGTERM and expects a clean exit.

Needs node (20+) and tests/e2e/node_modules with `openai` (scripts/npm-deps); when one is missing the test
fails and says which.
"""
import json
import os
import secrets
import shutil
import sys

from sigil_serve import E2E, run_against, serve_logged, test_folder, write_toml

# Each case: the prompt (a unique word picks the replay line), the model's reply with markup, and the clean
# text the caller must get. The one line without "match" answers the second model call of the search case
# (its last user message is the search results, which match nothing).
CASES = {
    "hello": {
        "prompt": "zq-hello please",
        "reply": '<react emoji="thumbsup"/>Hello there, <b>friend</b>. [REMEMBER:likes tea]',
        "clean": "Hello there, <b>friend</b>.",
    },
    "schedule": {
        "prompt": "zq-schedule the watering",
        "reply": 'Noted, I will remind you. <scheduleTask delay="2h">Water the plants</scheduleTask>',
        "clean": "Noted, I will remind you.",
    },
    "search": {
        "prompt": "zq-search my memories",
        "reply": "Let me look. [SEARCH_EPISODIC:tea]",
        "clean": "Let me look.\n\nNothing found.",
    },
    "partial": {
        "prompt": "zq-partial answer",
        "reply": "Half an ans",
        "error": "connection reset",
        "clean": "Half an ans",
    },
    "fail": {"prompt": "zq-fail now", "reply": "", "error": "upstream exploded", "clean": ""},
}
FALLBACK = {"reply": "Nothing found."}


def fail(message):
    print(f"openai_client_test: {message}", file=sys.stderr)
    sys.exit(1)


def check_tools():
    if shutil.which("node") is None:
        fail("node is not installed (Node 20+ is needed)")
    if not os.path.isdir(os.path.join(E2E, "node_modules", "openai")):
        fail("tests/e2e/node_modules/openai is missing: run scripts/npm-deps (make test does)")


def write_config(tmp, token):
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    replay = os.path.join(tmp, "replay.jsonl")
    with open(replay, "w", encoding="utf-8") as f:
        for case in CASES.values():
            line = {"match": case["prompt"].split()[0], "reply": case["reply"]}
            if "error" in case:
                line["error"] = case["error"]
            f.write(json.dumps(line) + "\n")
        f.write(json.dumps(FALLBACK) + "\n")
    return write_toml(tmp, f"""[server]
listen = "127.0.0.1:0"
api_token = "{token}"
# The test sends its requests quickly; the default rate is for people.
messages_per_minute = 0

[store]
data = "{data}"

[model]
replay = "{replay}"
# Fast, yet every reply arrives in many pieces (cut anywhere, markup characters alone).
tokens_per_second = 400
""")


def main():
    if len(sys.argv) < 2:
        fail("usage: openai_client_test.py PATH_TO_SIGIL")
    sigil = os.path.abspath(sys.argv[1])
    check_tools()
    with test_folder("sigil-openai-client-", "openai_client_test") as tmp:
        token = secrets.token_hex(16)
        config = write_config(tmp, token)
        server = serve_logged(sigil, config, tmp, fail)
        env = dict(os.environ, SIGIL_BASE_URL=server.url + "/v1", SIGIL_API_KEY=token,
                   SIGIL_OPENAI_CASES=json.dumps({k: {"prompt": v["prompt"], "clean": v["clean"]}
                                                  for k, v in CASES.items()}))
        run_against(server, ["node", "--test", "--test-reporter=spec", os.path.join(E2E, "openai_client.test.mjs")],
                    E2E, 540, fail, env=env)
        print("openai_client_test: passed")


if __name__ == "__main__":
    main()
