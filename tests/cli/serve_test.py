#!/usr/bin/env python3
"""`sigil serve` end to end: a real process, real sockets, SIGTERM, SIGKILL and restarts on one data folder.

argv[1] = the sigil binary. Checks:
- the embedded demo script: every reply parses with only valid directives (sigil parse);
- configuration errors exit 2 with file, line and key in the message;
- with a test replay script: chat over POST /v1/conversations/{id}/messages (SSE), a remembered fact, a
  task scheduled two hours ahead, a published page linked with [server] public_url;
- SIGTERM exits 0; SIGKILL in the middle of a streaming reply; after each restart the history, the fact and
  the scheduled task are there, the task exactly once and still pending;
- no configuration at all (the `make run` defaults) plays the embedded demo: "help", a reaction, files, a
  calculation, a published page.
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from sigil_serve import SigilServe, db_rows, sse_turn, write_replay, write_toml

SIGIL = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "examples", "demo-replay.jsonl")
TIMEOUT = 120  # seconds: an ASan build on a loaded 2-core machine

failures = []


def check(cond, what):
    if cond:
        print("ok:", what)
    else:
        print("FAIL:", what)
        failures.append(what)
    return cond


class Server(SigilServe):
    """One `sigil serve` process of this test's binary."""

    def __init__(self, args, cwd=None, env=None):
        super().__init__(SIGIL, args, cwd=cwd, env=env)

    def wait_listening(self):
        if super().wait_listening(TIMEOUT):
            return True
        print("server did not start; stdout:", "".join(self.out), "stderr:", self.stderr_text())
        return False

    def stop(self, sig=signal.SIGTERM):
        return super().stop(sig, TIMEOUT)


def text_of(events):
    return "".join(e[1]["text"] for e in events if e[0] == "text")


def end_of(events):
    ends = [e[1] for e in events if e[0] == "end"]
    return ends[0] if ends else None


def http_get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read().decode()
    conn.close()
    return resp.status, body


def history(port, data, conversation, user="web"):
    """The conversation's stored messages as (role, text): from the server when it has the endpoint, else
    from the SQLite file."""
    status, body = http_get(port, f"/v1/conversations/{conversation}/messages?user={user}")
    if status == 200:
        return [(m["role"], m["text"], m.get("task", "")) for m in json.loads(body)["messages"]]
    return db_rows(data, "SELECT role, text, task_id FROM messages WHERE user_id = ? AND conversation_id = ? "
                   "ORDER BY id", user, conversation)


# ---------------------------------------------------------------- the embedded demo script parses cleanly
def test_demo_script():
    allowed_diagnostics = {"interrupted-text"}  # the search line shows that a guess after a search is hidden
    keywords = []
    with open(DEMO, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            entry = json.loads(line)
            keywords.append(entry.get("match"))
            reply = entry["reply"]
            out = subprocess.run([SIGIL, "parse"], input=reply.encode(), capture_output=True, check=True)
            parsed = json.loads(out.stdout)
            invalid = [d for d in parsed["directives"] if not d["valid"]]
            bad = [d for d in parsed["diagnostics"] if d["code"] not in allowed_diagnostics]
            check(not invalid and not bad, f"demo line {number} ({entry.get('match')!r}): valid, no diagnostics "
                                           f"{invalid or ''}{bad or ''}")
            check("<" not in parsed["text"] or "think" in (entry.get("match") or ""),
                  f"demo line {number}: no markup in the clean text")
    for word in ["react", "file", "voice", "remember", "recall", "memory", "schedule", "calc", "page", "think",
                 "no-reply", "search", "[scheduled task "]:
        check(word in keywords, f"demo script has a line for {word!r}")
    check(None in keywords, "demo script has a fallback line (help)")


# ---------------------------------------------------------------- configuration errors
def test_bad_config(tmp):
    bad = os.path.join(tmp, "bad.toml")
    with open(bad, "w") as f:
        f.write("[server]\nlisen = \"127.0.0.1:1\"\n")
    r = subprocess.run([SIGIL, "serve", "--config", bad, "--data", os.path.join(tmp, "bad-data")],
                       capture_output=True, text=True, timeout=TIMEOUT)
    check(r.returncode == 2, f"unknown key: exit 2 (got {r.returncode})")
    check(f"{bad}:2:" in r.stderr and 'unknown key "lisen"' in r.stderr, f"unknown key message: {r.stderr.strip()}")

    listen_data = ["--listen", "127.0.0.1:0", "--data", os.path.join(tmp, "bad-data")]
    for text, args, expected, label in (
            ("[model]\ntokens_per_second = \"fast\"\n", [], "tokens_per_second must be a number", "wrong type"),
            ("[agent]\ndenied_actions = [\"launch-rockets\"]\n", listen_data, 'no action named "launch-rockets"',
             "unknown denied action"),
            ("[model]\nreplay = \"missing.jsonl\"\n", listen_data, "missing.jsonl", "missing replay file")):
        with open(bad, "w") as f:
            f.write(text)
        r = subprocess.run([SIGIL, "serve", "--config", bad, *args], capture_output=True, text=True, timeout=TIMEOUT)
        check(r.returncode == 2 and expected in r.stderr, f"{label}: exit 2 with the message: {r.stderr.strip()}")

    good = os.path.join(tmp, "good.toml")
    with open(good, "w") as f:
        f.write("[server]\nlisten = \"127.0.0.1:0\"\n")
    r = subprocess.run([SIGIL, "serve", "--config", good, "--listen", "nowhere"], capture_output=True, text=True,
                       timeout=TIMEOUT)
    check(r.returncode == 2 and '--listen: bad address "nowhere": no port' in r.stderr,
          f"bad --listen: exit 2 with the message: {r.stderr.strip()}")

    r = subprocess.run([SIGIL, "serve", "--listen", "0.0.0.0:0", "--data", os.path.join(tmp, "bad-data")],
                       capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp,
                       env={k: v for k, v in os.environ.items() if k != "SIGIL_API_TOKEN"})
    check(r.returncode == 2 and "api_token" in r.stderr, f"public bind without a token: exit 2: {r.stderr.strip()}")


TEST_REPLAY = [
    {"match": "publishWebPage: ok:", "reply": "Your page: {{url}}"},
    {"match": "remember", "reply": "I will remember that. [REMEMBER:favourite colour is teal]"},
    {"match": "schedule", "reply": "Reminder set. <scheduleTask>{\"message\": \"water the plants\", "
                                   "\"delay\": \"2h\"}</scheduleTask> Done."},
    {"match": "page", "reply": "Publishing. <publishWebPage><title>Test page</title><p>hi</p></publishWebPage>"},
    {"match": "slow", "reply": "A long answer: " + " ".join(f"word{i}" for i in range(3000))},
    {"reply": "Hello from the test replay."},
]


def write_config(tmp, data):
    write_replay(os.path.join(tmp, "replay.jsonl"), TEST_REPLAY)
    return write_toml(tmp, f"""# written by tests/cli/serve_test.py
[server]
listen = "127.0.0.1:8080"   # --listen overrides it
public_url = "http://sigil.test"
messages_per_minute = 0

[store]
data = "{data}"

[model]
replay = "replay.jsonl"     # relative to this file
tokens_per_second = 400
""")


def test_restart(tmp):
    data = os.path.join(tmp, "state")
    config = write_config(tmp, data)
    args = ["--config", config, "--listen", "127.0.0.1:0", "--data", data]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGIL_")}

    # ---- first run: chat, remember, schedule, publish; SIGTERM
    s = Server(args, env=env)
    if not check(s.wait_listening(), "first start: listening"):
        s.stop(signal.SIGKILL)
        return
    out = "".join(s.out)
    check("replayed" in out and data in out, f"start-up lines name the model and the data folder: {out.strip()}")
    check(http_get(s.port, "/healthz")[0] == 200, "GET /healthz")

    ev, status = sse_turn(s.port, "c1", "please remember my favourite colour")
    check(status == 200 and end_of(ev) and end_of(ev)["status"] == "ok", f"remember turn ends ok: {end_of(ev)}")
    check(text_of(ev) == "I will remember that.", f"remember turn text: {text_of(ev)!r}")
    ev, _ = sse_turn(s.port, "c1", "schedule a reminder")
    check(text_of(ev) == "Reminder set. Done.", f"schedule turn text: {text_of(ev)!r}")
    ev, _ = sse_turn(s.port, "c1", "hi there")
    check(text_of(ev) == "Hello from the test replay.", f"chat turn text: {text_of(ev)!r}")
    ev, _ = sse_turn(s.port, "c1", "publish a page")
    page_text = text_of(ev)
    check("Your page: http://sigil.test/pages/" in page_text, f"page link from public_url: {page_text!r}")
    check(end_of(ev) and end_of(ev)["status"] == "ok", "page turn (two model calls) ends ok")

    code = s.stop(signal.SIGTERM)
    check(code == 0, f"SIGTERM: exit 0 (got {code}); stderr: {s.stderr_text().strip()}")

    def check_state(label, first_port):
        facts = db_rows(data, "SELECT text FROM facts WHERE user_id = 'web'")
        check(facts == [("favourite colour is teal",)], f"{label}: the fact is stored once: {facts}")
        tasks = db_rows(data, "SELECT message, fired_at FROM tasks")
        check(tasks == [("water the plants", None)], f"{label}: the task is there once, pending: {tasks}")
        texts = [t for _, t, _ in history(first_port, data, "c1")]
        for said in ["please remember my favourite colour", "schedule a reminder", "hi there", "publish a page",
                     "I will remember that.", "Hello from the test replay."]:
            check(said in texts, f"{label}: history has {said!r}")

    # ---- second run on the same folder: everything is there; SIGKILL in the middle of a reply
    s = Server(args, env=env)
    if not check(s.wait_listening(), "second start: listening"):
        s.stop(signal.SIGKILL)
        return
    check_state("after SIGTERM", s.port)
    ev, _ = sse_turn(s.port, "c1", "a slow answer please", stop_at="text")
    check(any(e[0] == "text" for e in ev), "slow reply started streaming")
    code = s.stop(signal.SIGKILL)
    check(code == -signal.SIGKILL, f"SIGKILL mid-reply (got {code})")
    for e in ev:
        if e[0] == "conn":
            e[1].close()

    # ---- third run: the store survived the kill
    s = Server(args, env=env)
    if not check(s.wait_listening(), "third start (after SIGKILL): listening"):
        s.stop(signal.SIGKILL)
        return
    check_state("after SIGKILL", s.port)
    texts = [t for _, t, _ in history(s.port, data, "c1")]
    check("a slow answer please" in texts, "after SIGKILL: the interrupted turn's message is in the history")
    ev, _ = sse_turn(s.port, "c1", "remember it again")
    check(end_of(ev) and end_of(ev)["status"] == "ok", "a turn after the kill works")
    facts = db_rows(data, "SELECT text FROM facts")
    check(facts == [("favourite colour is teal",)], f"the fact is still stored once: {facts}")
    code = s.stop(signal.SIGINT)
    check(code == 0, f"SIGINT: exit 0 (got {code})")


def test_defaults(tmp):
    """`make run` style: no config file, no model: the embedded demo."""
    cwd = os.path.join(tmp, "plain")
    os.makedirs(cwd)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGIL_")}
    s = Server(["--listen", "127.0.0.1:0"], cwd=cwd, env=env)
    if not check(s.wait_listening(), "defaults: listening"):
        s.stop(signal.SIGKILL)
        return
    check("built-in demo" in "".join(s.out), "defaults: the embedded demo script plays")
    data = os.path.join(cwd, "data")
    check(os.path.isfile(os.path.join(data, "sigil.db")), "defaults: data/sigil.db")
    check(os.path.isfile(os.path.join(data, "files", "hello.txt")), "defaults: data/files/hello.txt")
    with open(os.path.join(data, "files", "sigil.png"), "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "defaults: data/files/sigil.png is a PNG")

    # First, so its minute runs while the other turns do: the scheduler fires it as a turn of its own.
    ev, _ = sse_turn(s.port, "demo", "schedule a reminder")
    check(end_of(ev) and end_of(ev)["status"] == "ok" and "remind you in a minute" in text_of(ev),
          f"demo: schedule: {text_of(ev)!r}")
    scheduled_at = time.monotonic()

    ev, _ = sse_turn(s.port, "demo", "help")
    check("replay demo" in text_of(ev), f"demo: help says it is the replay demo: {text_of(ev)[:80]!r}")
    ev, _ = sse_turn(s.port, "demo", "React to this")
    reactions = [e[1] for e in ev if e[0] == "delivery" and e[1].get("op") == "reaction"]
    check(len(reactions) == 1 and reactions[0].get("emoji") == "\U0001f44d", f"demo: react: {reactions}")
    ev, _ = sse_turn(s.port, "demo", "send me a file")
    files = [e[1] for e in ev if e[0] == "delivery" and e[1].get("op") == "file"]
    check(len(files) == 2, f"demo: file: two files delivered: {[f.get('path') or f.get('name') for f in files]}")
    ev, _ = sse_turn(s.port, "demo", "calc something")
    check("5130" in text_of(ev) and "128" in text_of(ev), f"demo: calc: {text_of(ev)!r}")
    ev, _ = sse_turn(s.port, "demo", "make a page")
    check("/pages/" in text_of(ev), f"demo: page link shown: {text_of(ev)!r}")
    ev, _ = sse_turn(s.port, "demo", "search the web")
    check("no web search provider" in text_of(ev) and "I am sure" not in text_of(ev),
          f"demo: search answers the provider error: {text_of(ev)[:90]!r}")
    ev, _ = sse_turn(s.port, "demo", "Remember that I like green tea")
    check(text_of(ev).startswith("Noted: you like green tea."), f"demo: remember: {text_of(ev)[:60]!r}")
    check(db_rows(data, "SELECT text FROM facts") == [("likes green tea",)], "demo: the fact is stored")
    ev, _ = sse_turn(s.port, "demo", "what do you recall?")
    check("Found it" in text_of(ev) and end_of(ev)["status"] == "ok", f"demo: recall: {text_of(ev)[:80]!r}")
    ev, _ = sse_turn(s.port, "demo", "send a voice note")
    voices = [e[1] for e in ev if e[0] == "delivery" and e[1].get("op") == "voice"]
    check(len(voices) == 1 and voices[0].get("duration_ms", 0) > 0, f"demo: voice note delivered: {voices}")
    ev, _ = sse_turn(s.port, "demo", "no-reply please")
    check(text_of(ev) == "" and end_of(ev) is not None, "demo: no-reply shows nothing")
    # The task is due a minute after it was scheduled; its turn stores the task message and the reply.
    fired = False
    while not fired and time.monotonic() < scheduled_at + 60 + TIMEOUT:
        messages = history(s.port, data, "demo")
        fired = any(role == "user" and task != "" for role, _, task in messages) and any(
            t.startswith("\u23f0 Time to stretch your legs!") for _, t, _ in messages)
        if not fired:
            time.sleep(1)
    check(fired, "demo: the scheduled task fired about a minute later and was answered")
    tasks = db_rows(data, "SELECT fired_at IS NOT NULL FROM tasks")
    check(tasks == [(1,)], f"demo: the task is marked fired, once: {tasks}")

    code = s.stop(signal.SIGTERM)
    check(code == 0, f"defaults: SIGTERM exit 0 (got {code})")


def main():
    with tempfile.TemporaryDirectory(prefix="sigil-serve-test-") as tmp:
        test_demo_script()
        test_bad_config(tmp)
        test_restart(tmp)
        test_defaults(tmp)
    if failures:
        print(f"{len(failures)} check(s) failed:")
        for f in failures:
            print("  -", f)
        sys.exit(1)
    print("serve_test: all checks passed")


if __name__ == "__main__":
    main()
