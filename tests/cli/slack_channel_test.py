#!/usr/bin/env python3
"""The Slack channel end to end against the wire-faithful fake (tests/fakes/slack.mjs).

Usage: slack_channel_test.py PATH_TO_SIGIL  (run by ctest as cli.slack_channel_test)

`sigil serve` with [channels.slack] pointed at the fake (Web API and Socket Mode) and a replay model in say
mode. Through the fake's admin API users write to the bot; the fake's journal (every Web API call with its
arguments, every upload's SHA-256, every Socket Mode frame) must show exactly the expected calls, nothing
twice:
1. a DM: a reaction by Slack name, two say blocks as mrkdwn, then (say mode holds them to the end) a file and a
   voice note as uploads; no markup anywhere; every envelope acked;
2. not answered: a user not in allowed_users, a channel message that does not mention the bot; a mention in
   #general is answered in its thread; a late <no-reply/> deletes what was said; send-message to an allowed
   channel sends for real, to another one nothing; a file the user shares is downloaded and kept;
3. faults, each message answered exactly once: a 429 with Retry-After on chat.postMessage (one retry after the
   wait), a time-out after the send went through (shown once, never sent again: in doubt), a dropped Socket
   Mode connection with a message written during the drop;
4. SIGKILL between recording a message and answering it, and a message written while sigil is down: after
   the restart each is answered exactly once.
Then the count over every message written: 0 lost, 0 answered twice. Every wait is for an event.
"""
import base64
import hashlib
import json
import os
import signal
import sys

from channel_fake import (FAKES, ChannelRun, Checks, FakeServer, channel_health, check_answered_once, check_shown_once,
                          metrics_text, write_replay)
from sigil_serve import file_folder, replay_model_toml, serve_toml, write_toml

FAKE = os.path.join(FAKES, "slack.mjs")
BOT_TOKEN = "xoxb-1000000001-2000000002-sigilFakeBotTokenNotASecret"
APP_TOKEN = "xapp-1-A0SIGIL0001-3000000003-sigilfakeapptokennotasecret"
BOT_USER = "U0SIGILBOT1"
ALICE, BOB = "U0ALICE0001", "U0BOB000001"
GENERAL, DM = "C0GENERAL01", "D0ALICEDM01"
CHECKS = Checks("slack_channel_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for

REPORT_REPLY = ('I should send the report first. <react emoji="👍"/><say>Here is **the report**: it has `code`, '
                'snake_case and a < b & c.</say><file path="report.pdf" mode="doc"/>'
                '<voice>Hello from sigil.</voice><say>That is all.</say>')
LATE_REPLY = '<say>Let me look into that.</say> On second thought this needs no answer. <no-reply/>'
NOPE = "C0NOPE00001"
RELAY_REPLY = ('<say>Relaying.</say><send-message channel="slack" chat="' + GENERAL + '">Relayed *hello*'
               '</send-message><send-message channel="slack" chat="' + NOPE + '">leak</send-message>')
SLOW_REPLY = "<say>Slow answer MARK-SLOW " + " ".join(f"word{i}" for i in range(80)) + " end.</say>"


class Fake(FakeServer):
    def __init__(self, state_dir):
        super().__init__(CHECKS, FAKE, state_dir)

    def write(self, text, **extra):
        body = {"text": text, "channel": DM, "user": ALICE}
        body.update(extra)
        return self.admin("/_fake/messages", body)["message"]

    def bot_messages(self, channel):
        chan = self.admin(f"/_fake/channels/{channel}")["channel"]
        return [m for m in chan["messages"] if m.get("bot_id")]

    def calls(self, since=0, method=None):
        return [e for e in self.entries(since) if e.get("kind") in ("api", "upload") and
                (method is None or e.get("route") == method)]


def turn_logged(server, channel, ts):
    return any(f"slack-turn turn=sl-{channel}-{ts} " in line for line in server.err)


def ignored(server, channel, ts):
    return next((line for line in server.err if f"slack-ignored message={channel}:{ts} " in line), None)


def main():
    sigil = os.path.abspath(sys.argv[1])
    written = []  # (channel, ts)
    with ChannelRun(CHECKS, "Slack", "sigil-slack-", lambda state_dir: Fake(state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        report = os.urandom(3000) + b"%PDF-not-really"
        files = file_folder(tmp, [("report.pdf", report)])
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "is not an allowed target",
                               "reply": "<say>That channel is not allowed.</say>"},
                              {"match": "report", "reply": REPORT_REPLY}, {"match": "slow", "reply": SLOW_REPLY},
                              {"match": "late", "reply": LATE_REPLY}, {"match": "relay", "reply": RELAY_REPLY},
                              {"match": "MARK-", "reply": "<say>Answer to MARK-ECHO.</say>"},
                              {"reply": "<say>Fallback.</say>"}))
        config = write_toml(tmp, serve_toml(tmp) +
                                 replay_model_toml(replay, 40) + '[agent]\nsay_mode = true\n'
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[[actions.message_targets]]\nchannel = "slack"\nchat = "{GENERAL}"\n'
                                 f'[channels.slack]\nbot_token = "{BOT_TOKEN}"\napp_token = "{APP_TOKEN}"\n'
                                 f'api_url = "{fake.url}/api"\nallowed_users = ["{ALICE}"]\nrequest_timeout = 3\n')

        def start(name):
            return run.start(sigil, config, name)

        def hello_count():
            return sum(1 for e in fake.entries(kind="socket") if e.get("type") == "hello")

        server = start("serve1.log")
        check(any("sigil: slack: socket mode via " + fake.url in line for line in server.out),
              "serve says it uses the configured API")
        wait_for("Socket Mode's hello", lambda: hello_count() >= 1, server)
        opens = fake.calls(method="apps.connections.open")
        check(len(opens) == 1 and opens[0]["token_kind"] == "app", "apps.connections.open with the app-level token")

        # 1. The report: reaction, say block, say block, file, voice note; nothing else.
        seq = fake.last_seq()
        msg = fake.write("please send the report")
        written.append((DM, msg["ts"]))
        wait_for("the report turn", lambda: turn_logged(server, DM, msg["ts"]), server)
        calls = [e for e in fake.calls(seq) if e["route"] != "auth.test"]
        kinds = [e["route"] for e in calls]
        print("journal (report):", kinds)
        check(kinds == ["reactions.add", "chat.postMessage", "chat.postMessage", "files.getUploadURLExternal",
                        "upload", "files.completeUploadExternal", "files.getUploadURLExternal", "upload",
                        "files.completeUploadExternal"], f"exactly the expected calls in order: {kinds}")
        check(all(e["status"] == 200 and (e["kind"] == "upload" or e["response"]["ok"]) for e in calls),
              "Slack took every call")
        react = calls[0]["params"]
        check(react == {"channel": DM, "timestamp": msg["ts"], "name": "+1"}, f"👍 as +1 on the user's message: {react}")
        texts = [e["params"]["text"] for e in calls if e["route"] == "chat.postMessage"]
        print("texts:", texts)
        check(texts[0] == "Here is *the report*: it has `code`, snake_case and a &lt; b &amp; c.",
              "the say block rendered as mrkdwn (& < escaped)")
        check(texts[1] == "That is all.", "the second say block is its own message")
        check(all("thread_ts" not in e["params"] for e in calls if e["route"] == "chat.postMessage"),
              "a DM is answered at the top level")
        everything = json.dumps([e.get("params") for e in calls], ensure_ascii=False)
        check("<react" not in everything and "<say" not in everything and "<file" not in everything and
              "I should send" not in everything, "no directive and no text outside <say> reaches Slack")
        uploads = [e for e in calls if e["route"] == "upload"]
        check(uploads[0]["sha256"] == hashlib.sha256(report).hexdigest(), "the file carries report.pdf's bytes")
        shown = fake.bot_messages(DM)
        names = [f["name"] for m in shown for f in m.get("files", [])]
        check(names[0] == "report.pdf" and names[1].endswith(".ogg"), f"the file, then the voice note: {names}")
        voice = [f for m in shown for f in m.get("files", [])][1]
        check(voice["mimetype"] == "audio/ogg", "the voice note is an Ogg audio file")
        wait_for("every envelope acked", lambda: all(
            e["state"] == "acked" for e in fake.admin("/_fake/socket/envelopes")["envelopes"]), server)

        # 2. Not answered: another user, a channel message without a mention. Answered: a mention, in its thread.
        seq = fake.last_seq()
        m_bob = fake.write("please send the report", user=BOB)
        # With message.channels subscribed too, every channel message is an event, and a mention comes twice.
        fake.admin("/_fake/config", {"subscriptions": ["app_mention", "message.im", "message.channels"]})
        m_all = fake.write("report talk among us", channel=GENERAL)
        for m, ch, why in ((m_bob, DM, "not in allowed_users"), (m_all, GENERAL, "not addressed")):
            line = wait_for(f"{why} ignored", lambda m=m, ch=ch: ignored(server, ch, m["ts"]), server)
            check(why in line, f"ignored: {why}")
        m_at = fake.write(f"<@{BOT_USER}> MARK-MENTION please", channel=GENERAL)
        written.append((GENERAL, m_at["ts"]))
        wait_for("the mention turn", lambda: turn_logged(server, GENERAL, m_at["ts"]), server)
        posts = [e for e in fake.calls(seq, "chat.postMessage") if e["params"]["channel"] == GENERAL]
        check(len(posts) == 1 and posts[0]["params"].get("thread_ts") == m_at["ts"],
              "one answer, in the thread of the message that mentioned the bot (message + app_mention: once)")

        # 2b. A late <no-reply/>: what was said is deleted again; the user sees nothing.
        seq = fake.last_seq()
        before = len(fake.bot_messages(DM))
        msg = fake.write("a late one")
        written.append((DM, msg["ts"]))
        wait_for("the late turn", lambda: turn_logged(server, DM, msg["ts"]), server)
        late = [e["route"] for e in fake.calls(seq) if e["route"] in ("chat.postMessage", "chat.delete")]
        check(late == ["chat.postMessage", "chat.delete"], f"the said message is deleted again: {late}")
        check(len(fake.bot_messages(DM)) == before, "the user sees no new message")

        # 2c. send-message: for real to an allowed channel, refused for another.
        seq = fake.last_seq()
        msg = fake.write("relay this")
        written.append((DM, msg["ts"]))
        wait_for("the relay turn", lambda: turn_logged(server, DM, msg["ts"]), server)
        posts = fake.calls(seq, "chat.postMessage")
        relayed = [e["params"]["text"] for e in posts if e["params"]["channel"] == GENERAL]
        check(relayed == ["Relayed _hello_"], f"send-message sent to the allowed channel once, as mrkdwn: {relayed}")
        check(all(e["params"].get("channel") != NOPE for e in fake.calls(seq)), "nothing to a channel not allowed")
        texts = [e["params"]["text"] for e in posts if e["params"]["channel"] == DM]
        check(texts == ["Relaying.", "That channel is not allowed."], f"the reply around it: {texts}")

        # 2d. A file the user shares: downloaded with the bot token and kept where the file actions find it.
        notes = os.urandom(500)
        seq = fake.last_seq()
        msg = fake.write("MARK-FILE here are my notes",
                         files=[{"name": "notes.bin", "data_base64": base64.b64encode(notes).decode()}])
        written.append((DM, msg["ts"]))
        wait_for("the file turn", lambda: turn_logged(server, DM, msg["ts"]), server)
        downloads = [e for e in fake.entries(seq, kind="download")]
        check(len(downloads) == 1 and downloads[0]["authorized"], "the file was downloaded once, with the bot token")
        kept = os.path.join(files, "slack", DM, f"{msg['ts']}-notes.bin")
        check(os.path.exists(kept) and open(kept, "rb").read() == notes, f"the file is kept as {kept}")

        # 3. Faults. A 429 with Retry-After on the answer: one retry after the wait.
        fake.admin("/_fake/faults", {"match": "chat.postMessage", "kind": "rate_limit", "retry_after": 1})
        seq = fake.last_seq()
        msg = fake.write("MARK-429")
        written.append((DM, msg["ts"]))
        wait_for("the 429 turn", lambda: turn_logged(server, DM, msg["ts"]), server)
        sends = fake.calls(seq, "chat.postMessage")
        check([e["status"] for e in sends] == [429, 200], f"429, then sent once: {[e['status'] for e in sends]}")
        check(sends[1]["t_ms"] - sends[0]["t_ms"] >= 950, "the retry waited Retry-After (1 s)")

        # A time-out after the send went through: the answer is shown once and never sent again (in doubt).
        fake.admin("/_fake/faults", {"match": "chat.postMessage", "kind": "timeout"})
        seq = fake.last_seq()
        msg = fake.write("MARK-TIMEOUT")
        written.append((DM, msg["ts"]))
        wait_for("the time-out turn", lambda: turn_logged(server, DM, msg["ts"]), server)
        sends = fake.calls(seq, "chat.postMessage")
        check(len(sends) == 1, f"the send whose answer never came was not repeated: {len(sends)} calls")
        line = next(l for l in server.err if f"slack-turn turn=sl-{DM}-{msg['ts']} " in l)
        check("in_doubt" in line or "outcome unknown" in line, f"the turn's log names the send in doubt: {line}")

        # A dropped Socket Mode connection; a message written during the drop arrives on the next one.
        hellos = hello_count()
        fake.admin("/_fake/socket/drop", {})
        msg = fake.write("MARK-DROP")
        written.append((DM, msg["ts"]))
        wait_for("the turn of the message written during the drop", lambda: turn_logged(server, DM, msg["ts"]), server)
        check(hello_count() > hellos and len(fake.calls(method="apps.connections.open")) >= 2,
              "Socket Mode reconnected through a new apps.connections.open")

        slack = channel_health(CHECKS, server, "slack")
        check(slack["mode"] == "socket" and slack["state"] == "connected", f"/healthz shows the Slack channel: {slack}")
        metrics = metrics_text(server)
        check('sigil_channel_connected{channel="slack"} 1' in metrics, "/metrics says Socket Mode is connected")
        check(BOT_TOKEN not in metrics and APP_TOKEN not in metrics and
              all(BOT_TOKEN not in line and APP_TOKEN not in line for line in server.err + server.out),
              "neither /metrics nor the log shows a token")

        # 4. SIGKILL while a turn runs (its message recorded and acked, not answered), and a message written
        # while sigil is down; then a restart.
        slow = fake.write("a slow one please")
        written.append((DM, slow["ts"]))
        key = f"{DM}:{slow['ts']}"

        def slow_acked():
            ids = {e["envelope_id"] for e in fake.entries(kind="socket") if e.get("ts") == slow["ts"]}
            return any(e["envelope_id"] in ids and e["state"] == "acked"
                       for e in fake.admin("/_fake/socket/envelopes")["envelopes"])
        wait_for("the slow message acked (recorded)", slow_acked, server)
        server.stop(signal.SIGKILL)
        away = fake.write("MARK-AWAY while sigil is down")
        written.append((DM, away["ts"]))
        server = start("serve2.log")
        wait_for("the slow turn after the restart", lambda: turn_logged(server, DM, slow["ts"]), server)
        check(any(f"slack-resume message={key}" in line for line in server.err),
              "the recorded, unfinished message is resumed at start")
        wait_for("the message written while down", lambda: turn_logged(server, DM, away["ts"]), server)

        # The count over every message written.
        check_answered_once(CHECKS, tmp, {(ch, ts): f"slack-turn turn=sl-{ch}-{ts} " for ch, ts in written})
        check_shown_once(CHECKS, [m.get("text") or "" for m in fake.bot_messages(DM)], 5,
                         "MARK-FILE, MARK-429, MARK-TIMEOUT, MARK-DROP, MARK-AWAY")

        run.stop_cleanly("sigil serve stops cleanly on SIGTERM")
        print("slack_channel_test: all checks passed")


if __name__ == "__main__":
    main()
