#!/usr/bin/env python3
"""The WhatsApp channel end to end against the wire-faithful fake (tests/fakes/whatsapp.mjs).

Usage: whatsapp_channel_test.py PATH_TO_SIGIL  (run by ctest as cli.whatsapp_channel_test)

`sigil serve` with [channels.whatsapp] pointed at the fake's Graph API, and the fake posting to sigil's webhook
(verified by the hub.challenge GET first, every post signed with X-Hub-Signature-256); a replay model in say
mode. Through the fake's admin API users write to the business number; the fake's journal (every Graph call
with its body, every webhook delivery and its status) must show exactly the expected calls, nothing twice:
1. a message in, the answer out: the read receipt with the typing indicator, a reaction, the say blocks in
   WhatsApp's formatting, a document and a voice note (uploaded, then sent by media id); no markup anywhere;
2. not answered: a user not in allowed_users; refused before anything is read: posts with a wrong or missing
   signature, or a body changed by one byte; a redelivery of a recorded message starts nothing; a user's file
   is downloaded with the token and kept; send-message to a number not on WhatsApp: its `failed` status is
   logged; a message whose 24-hour window has closed: the answer's refusal (131047) is logged, not dropped
   silently;
3. faults, each message answered exactly once: a 429 with Retry-After (one retry after the wait), a time-out
   after the send went through (shown once, never sent again: in doubt);
4. SIGKILL between recording a message and answering it, and a message posted while sigil is down (retried
   by the fake until sigil answers 200): after the restart each is answered exactly once.
Then the count over every message written: 0 lost, 0 answered twice. Every wait is for an event.
"""
import base64
import json
import os
import signal
import socket
import sys

from channel_fake import FAKES, ChannelRun, Checks, FakeServer, channel_health, metrics_text, write_replay
from sigil_serve import file_folder, replay_model_toml, write_toml

FAKE = os.path.join(FAKES, "whatsapp.mjs")
TOKEN = "EAAGsigilFakeSystemUserTokenNotASecret0000000000"
APP_SECRET = "sigil-fake-app-secret-not-a-secret"
VERIFY_TOKEN = "sigil-fake-verify-token"
NUMBER = "106540352242922"
ALICE, BOB, NOBODY = "16505551234", "447700900123", "15005550006"
CHECKS = Checks("whatsapp_channel_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for

REPORT_REPLY = ('I should send the report first. <react emoji="👍"/><say>Here is **the report**: it has `code`, '
                'snake_case and a < b & c.</say><file path="report.pdf" mode="doc"/>'
                '<voice>Hello from sigil.</voice><say>That is all.</say>')
RELAY_REPLY = ('<say>Relaying.</say><send-message channel="whatsapp" chat="' + NOBODY + '">Relayed *hello*'
               '</send-message>')
SLOW_REPLY = "<say>Slow answer MARK-SLOW " + " ".join(f"word{i}" for i in range(80)) + " end.</say>"


def turn_id(wamid):
    """sigil's turn id of a message: "wa-" and the wamid's base64 as base64url without padding."""
    part = wamid[len("wamid."):] if wamid.startswith("wamid.") else wamid
    return "wa-" + part.replace("+", "-").replace("/", "_").replace("=", "")


class Fake(FakeServer):
    def __init__(self, state_dir):
        super().__init__(CHECKS, FAKE, state_dir)

    def write(self, text=None, **extra):
        body = {"from": ALICE}
        if text is not None:
            body["text"] = text
        body.update(extra)
        return self.admin("/_fake/messages", body)["message"]

    def sent(self, wa_id=ALICE):
        """What the business sent the user, as they see it."""
        return [m for m in self.admin(f"/_fake/users/{wa_id}")["user"]["messages"] if m["direction"] == "out"]

    def sends(self, since=0):
        """POST …/messages calls that are messages (read receipts are route "POST read")."""
        return [e for e in self.entries(since, kind="api") if e.get("route") == "POST messages"]


def as_logged(value):
    """A value as the log line shows it: quoted (JSON) when it has a space, a quote or '=' (base64 padding)."""
    return json.dumps(value) if any(c in value for c in ' "=') else value


def turn_logged(server, wamid):
    return any(f"whatsapp-turn turn={turn_id(wamid)} " in line for line in server.err)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    sigil = os.path.abspath(sys.argv[1])
    written = []  # wamids
    with ChannelRun(CHECKS, "WhatsApp", "sigil-wa-", lambda state_dir: Fake(state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        report = os.urandom(3000) + b"%PDF-not-really"
        files = file_folder(tmp, [("report.pdf", b"%PDF-1.4\n" + report)])
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "report", "reply": REPORT_REPLY}, {"match": "slow", "reply": SLOW_REPLY},
                              {"match": "relay", "reply": RELAY_REPLY},
                              {"match": "MARK-", "reply": "<say>Answer to MARK-ECHO.</say>"},
                              {"reply": "<say>Fallback.</say>"}))
        # A fixed port: the fake keeps posting to the same URL across sigil's restart, as Meta would.
        port = free_port()
        hook = f"http://127.0.0.1:{port}/whatsapp/webhook"
        config = write_toml(tmp, f'[server]\nlisten = "127.0.0.1:{port}"\n[store]\ndata = "{tmp}/data"\n' +
                                 replay_model_toml(replay, 40) + '[agent]\nsay_mode = true\n'
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[[actions.message_targets]]\nchannel = "whatsapp"\nchat = "{NOBODY}"\n'
                                 f'[channels.whatsapp]\napi_url = "{fake.url}/v23.0"\nphone_number_id = "{NUMBER}"\n'
                                 f'app_secret = "{APP_SECRET}"\nverify_token = "{VERIFY_TOKEN}"\n'
                                 f'allowed_users = ["+1 650 555 1234"]\nrequest_timeout = 3\n')
        env_token = {"SIGIL_WHATSAPP_ACCESS_TOKEN": TOKEN}
        os.environ.update(env_token)  # the token from the environment, as the docs advise

        def start(name):
            return run.start(sigil, config, name)

        server = start("serve1.log")
        check(any("sigil: whatsapp: webhook at /whatsapp/webhook" in line for line in server.out),
              "serve says where the webhook is")
        # The subscription: a wrong verify token is refused, the right one answered with the challenge.
        wrong = fake.admin("/_fake/webhook", {"url": hook, "verify_token": "not-it"})
        check(not wrong["ok"] and wrong["status"] == 403, f"a wrong verify token is refused: {wrong}")
        verified = fake.admin("/_fake/webhook", {"url": hook, "verify_token": VERIFY_TOKEN})
        check(verified["ok"], f"the hub.challenge GET is answered with the challenge: {verified}")
        fake.admin("/_fake/config", {"webhook_retry_ms": 200, "webhook_max_retry_ms": 1000})

        # 1. The report: read receipt + typing, reaction, text, upload, document, upload, voice, text.
        seq = fake.last_seq()
        msg = fake.write("please send the report")
        written.append(msg["id"])
        wait_for("the report turn", lambda: turn_logged(server, msg["id"]), server)
        calls = [e for e in fake.entries(seq, kind="api")]
        shape = [(e["route"], (e.get("params") or {}).get("type") or (e.get("params") or {}).get("status"))
                 for e in calls]
        print("journal (report):", shape)
        # Say mode holds the file and the voice note until the say blocks are out.
        check(shape == [("POST read", "read"), ("POST messages", "reaction"), ("POST messages", "text"),
                        ("POST messages", "text"), ("POST media", "application/pdf"),
                        ("POST messages", "document"), ("POST media", "audio/ogg"), ("POST messages", "audio")],
              f"exactly the expected calls in order: {shape}")
        check(all(e["status"] == 200 for e in calls), "WhatsApp took every call")
        check(calls[0]["params"].get("typing_indicator") == {"type": "text"}, "the read receipt shows typing")
        check(calls[1]["params"]["reaction"] == {"message_id": msg["id"], "emoji": "👍"},
              f"👍 on the user's message: {calls[1]['params']}")
        texts = [e["params"]["text"]["body"] for e in calls if e["params"].get("type") == "text"]
        print("texts:", texts)
        check(texts == ["Here is *the report*: it has `code`, snake_case and a < b & c.", "That is all."],
              "the say blocks in WhatsApp's formatting, each its own message")
        everything = json.dumps([e.get("params") for e in calls], ensure_ascii=False)
        check("<react" not in everything and "<say" not in everything and "<file" not in everything and
              "**" not in everything and "I should send" not in everything,
              "no directive, no Markdown syntax and no text outside <say> reaches WhatsApp")
        check(calls[4]["files"][0]["size"] == len(report) + 9, "the document carries report.pdf's bytes")
        check(calls[7]["params"]["audio"].get("voice") is True, "the voice note is sent as one (voice: true)")
        shown = fake.sent()
        check([m["type"] for m in shown] == ["reaction", "text", "text", "document", "audio"],
              f"the user sees the reaction, two texts, the document, the voice note: {[m['type'] for m in shown]}")
        check(fake.admin(f"/_fake/users/{ALICE}")["user"]["messages"][0].get("reaction") == "👍",
              "the reaction is on the user's message")

        # 2. Not answered: another user.
        m_bob = fake.write("please send the report", **{"from": BOB})
        wait_for("bob ignored", lambda: any(f"whatsapp-ignored message={as_logged(m_bob['id'])} " in line and
                                            "not in allowed_users" in line for line in server.err), server)
        check(not fake.sent(BOB), "nothing is sent to a user not in allowed_users")

        # Posts refused for their signature: nothing of them is read or recorded.
        fake.admin("/_fake/webhook/pause", {"paused": True})
        forged = fake.write("MARK-FORGED")
        results = [fake.admin("/_fake/webhook/post", {"delivery_id": d, **spec})["status"]
                   for d in [fake.admin("/_fake/webhook/deliveries")["deliveries"][-1]["id"]]
                   for spec in ({"signature": "wrong"}, {"signature": "missing"}, {"tamper": True})]
        check(results == [403, 401, 403], f"wrong → 403, missing → 401, one byte changed → 403: {results}")
        check(not turn_logged(server, forged["id"]) and
              not any(forged["id"] in line and "whatsapp-duplicate" in line for line in server.err),
              "a refused post started nothing")
        fake.admin("/_fake/webhook/pause", {"paused": False})
        written.append(forged["id"])  # now delivered, signed: answered once
        wait_for("the forged message's real delivery", lambda: turn_logged(server, forged["id"]), server)

        # A redelivery of a recorded message (the same bytes, signed): 200, nothing started again.
        first = fake.admin("/_fake/webhook/deliveries")["deliveries"]
        again = next(d for d in first if any(m["id"] == msg["id"] for m in d["summary"]["messages"]))
        r = fake.admin("/_fake/webhook/post", {"delivery_id": again["id"]})
        check(r["status"] == 200, "a redelivery is answered 200 (Meta stops)")
        wait_for("the duplicate logged", lambda: any(f"whatsapp-duplicate message={as_logged(msg['id'])}" in line
                                                     for line in server.err), server)

        # A user's file: downloaded with the token, kept where the file actions find it.
        notes = b"%PDF-1.4\n" + os.urandom(400)
        seq = fake.last_seq()
        m_file = fake.write(document={"name": "notes.pdf", "data_base64": base64.b64encode(notes).decode(),
                                      "caption": "MARK-FILE my notes"})
        written.append(m_file["id"])
        wait_for("the file turn", lambda: turn_logged(server, m_file["id"]), server)
        downloads = fake.entries(seq, kind="download")
        check(len(downloads) == 1 and downloads[0]["authorized"] and downloads[0]["status"] == 200,
              "the file was downloaded once, with the token")
        kept = os.path.join(files, "whatsapp", ALICE, turn_id(m_file["id"])[3:] + "-notes.pdf")
        check(os.path.exists(kept) and open(kept, "rb").read() == notes, f"the file is kept as {kept}")

        # send-message to a number not on WhatsApp: accepted, then a `failed` status, which sigil logs.
        m_relay = fake.write("relay this")
        written.append(m_relay["id"])
        wait_for("the relay turn", lambda: turn_logged(server, m_relay["id"]), server)
        wait_for("the failed status logged", lambda: any("whatsapp-status-failed" in line and "code=131026" in line
                                                         for line in server.err), server)

        # Outside the 24-hour window: the answer is refused (131047), which is logged, never silent.
        seq = fake.last_seq()
        m_old = fake.write("MARK-OLD", window_open=False)
        written.append(m_old["id"])
        wait_for("the closed-window turn", lambda: turn_logged(server, m_old["id"]), server)
        refusals = [e for e in fake.sends(seq) if e["status"] == 400]
        check(len(refusals) == 1 and refusals[0]["response"]["error"]["code"] == 131047,
              "the answer was refused once with 131047, not tried again")
        check(any("whatsapp-send-failed" in line and "24 hours" in line for line in server.err),
              "the log says why: the 24-hour window")

        # 3. Faults. A 429 with Retry-After: one retry after the wait.
        fake.admin("/_fake/faults", {"match": "POST messages", "kind": "rate_limit", "retry_after": 1, "times": 1})
        seq = fake.last_seq()
        m429 = fake.write("MARK-429")
        written.append(m429["id"])
        wait_for("the 429 turn", lambda: turn_logged(server, m429["id"]), server)
        calls = [e for e in fake.entries(seq, kind="api") if e["route"] == "POST messages"]
        statuses = [e["status"] for e in calls]
        check(statuses == [429, 200], f"the answer met the 429, then went once: {statuses}")
        check(calls[1]["t_ms"] - calls[0]["t_ms"] >= 950, "the retry waited Retry-After (1 s)")

        # A time-out after the send went through: shown once, never sent again (in doubt).
        seq = fake.last_seq()
        fake.admin("/_fake/faults", {"match": "POST messages", "kind": "timeout"})
        m_to = fake.write("MARK-TIMEOUT")
        written.append(m_to["id"])
        wait_for("the time-out turn", lambda: turn_logged(server, m_to["id"]), server)
        sends = fake.sends(seq)
        check(len(sends) == 1, f"the send whose answer never came was not repeated: {len(sends)} sends")
        line = next(l for l in server.err if f"whatsapp-turn turn={turn_id(m_to['id'])} " in l)
        check("in_doubt" in line or "outcome unknown" in line, f"the turn's log names the send in doubt: {line}")

        health = channel_health(CHECKS, server, "whatsapp")
        check(health["mode"] == "webhook" and health["state"] == "verified", f"/healthz shows the channel: {health}")
        metrics = metrics_text(server)
        check('sigil_channel_connected{channel="whatsapp"} 1' in metrics, "/metrics says the webhook is verified")
        check('sigil_channel_failures_total{channel="whatsapp",api="webhook"} 4' in metrics,
              "/metrics counts the 3 refused posts and the failed status")
        check(all(s not in metrics and all(s not in l for l in server.err + server.out)
                  for s in (TOKEN, APP_SECRET, VERIFY_TOKEN)), "neither /metrics nor the log shows a secret")

        # 4. SIGKILL while a turn runs (its message recorded: the post answered 200), and a message posted
        # while sigil is down; then a restart on the same port.
        slow = fake.write("a slow one please")
        written.append(slow["id"])

        def slow_recorded():
            return any(e.get("status") == 200 and any(m["id"] == slow["id"] for m in e["summary"]["messages"])
                       for e in fake.entries(kind="webhook") if e.get("summary"))
        wait_for("the slow message recorded (its post answered 200)", slow_recorded, server)
        server.stop(signal.SIGKILL)
        away = fake.write("MARK-AWAY while sigil is down")
        written.append(away["id"])
        wait_for("the fake retrying the post while sigil is down", lambda: sum(
            1 for e in fake.entries(kind="webhook") if e.get("summary") and
            any(m["id"] == away["id"] for m in e["summary"]["messages"])) >= 2)
        server = start("serve2.log")
        wait_for("the slow turn after the restart", lambda: turn_logged(server, slow["id"]), server)
        check(any(f"whatsapp-resume message={as_logged(slow['id'])}" in line for line in server.err),
              "the recorded, unfinished message is resumed at start")
        wait_for("the message posted while down", lambda: turn_logged(server, away["id"]), server)

        # The count over every message written.
        logs = open(os.path.join(tmp, "serve1.log")).readlines() + open(os.path.join(tmp, "serve2.log")).readlines()
        answers = {w: sum(1 for line in logs if f"whatsapp-turn turn={turn_id(w)} " in line) for w in written}
        lost = [k for k, n in answers.items() if n == 0]
        twice = [k for k, n in answers.items() if n > 1]
        check(not lost, f"0 lost inbound messages ({len(written)} written): {lost}")
        check(not twice, f"0 messages answered twice: {twice}")
        texts = [m["text"]["body"] for m in fake.sent() if m["type"] == "text"]
        check(sum("MARK-SLOW" in t for t in texts) == 1, "the slow answer is shown exactly once")
        echoes = 5  # MARK-FORGED, MARK-FILE, MARK-429, MARK-TIMEOUT, MARK-AWAY
        check(sum(t == "Answer to MARK-ECHO." for t in texts) == echoes,
              f"each of the {echoes} echo answers is shown exactly once")
        check(sum(t == "That is all." for t in texts) == 1, "the report's last message is shown once")

        run.stop_cleanly("sigil serve stops cleanly on SIGTERM")
        print("whatsapp_channel_test: all checks passed")


if __name__ == "__main__":
    main()
