#!/usr/bin/env python3
"""The Signal channel end to end against the signal-cli fake (tests/fakes/signal.mjs).

Usage: signal_channel_test.py PATH_TO_SIGIL  (run by ctest as cli.signal_channel_test)

`sigil serve` with [channels.signal] pointed at the fake (signal-cli's HTTP daemon, started as
docs/channels/signal.md says: --receive-mode on-connection) and a replay model in say mode. Through the fake's
admin API people write to the bot; the fake's journal (every JSON-RPC call with its params) and its chats (as a
user's app shows them) must show exactly the expected calls, nothing twice:
1. a direct message: a reaction on it, the say blocks as plain text with style ranges, then a file as an attachment;
   no markup anywhere;
2. not answered: a sender not in allowed_users, a group message without a mention; a mention in an allowed
   group is answered there, quoting it; send-message to an allowed chat sends for real, to another one nothing;
   a late <no-reply/> deletes what was said (remoteDelete); an attachment a person sends is fetched
   (getAttachment) and kept;
3. faults: a dropped event stream with a message written during the drop; a time-out after a send went
   through (shown once, never sent again: in doubt);
4. SIGKILL between recording a message and answering it, and a message written while sigil is down: after
   the restart each is answered exactly once.
Then the count over every message written: 0 lost, 0 answered twice.
"""
import base64
import json
import os
import signal
import sys

from channel_fake import (FAKES, ChannelRun, Checks, FakeServer, channel_health, check_answered_once, check_shown_once,
                          metrics_text, write_replay)
from sigil_serve import file_folder, replay_model_toml, serve_toml, write_toml

FAKE = os.path.join(FAKES, "signal.mjs")
ACCOUNT = "+15550100001"
ALICE, BOB = "+15550100002", "+15550100003"
GROUP = "UVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVE="
CHECKS = Checks("signal_channel_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for

REPORT_REPLY = ('I should send the report first. <react emoji="👍"/><say>Here is **the report**: it has `code` '
                'and *style*.</say><file path="report.pdf" mode="doc"/><say>That is all.</say>')
RELAY_REPLY = ('<say>Relaying.</say><send-message channel="signal" chat="' + BOB + '">Relayed **hello**'
               '</send-message><send-message channel="signal" chat="+15550100077">leak</send-message>')
LATE_REPLY = '<say>Let me look into that.</say> On second thought this needs no answer. <no-reply/>'
SLOW_REPLY = "<say>Slow answer MARK-SLOW " + " ".join(f"word{i}" for i in range(80)) + " end.</say>"


class Fake(FakeServer):
    def __init__(self, state_dir):
        super().__init__(CHECKS, FAKE, state_dir, ("--receive-mode", "on-connection", "--keepalive-ms", "1000"))

    def write(self, text, **extra):
        body = {"from": "alice", "text": text}
        body.update(extra)
        return self.admin("/_fake/messages", body)["envelope"]

    def chat(self, key):
        return self.admin("/_fake/chats/" + key.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"))

    def bot_messages(self, key):
        return [m for m in self.chat(key)["messages"] if m["author"] == ACCOUNT]

    def calls(self, since=0, method=None):
        return [e for e in self.entries(since, kind="rpc") if method is None or e.get("route") == method]


def turn_line(chat, ts):
    """What a turn's log line holds: its id, quoted when a group id's '=' is in it."""
    turn = f"sg-{chat}-{ts}"
    return f'signal-turn turn="{turn}"' if "=" in turn else f"signal-turn turn={turn} "


def turn_logged(server, chat, ts):
    return any(turn_line(chat, ts) in line for line in server.err)


def ignored(server, sender, ts):
    return next((line for line in server.err if f"signal-ignored message={sender}/{ts} " in line), None)


def main():
    sigil = os.path.abspath(sys.argv[1])
    written = []  # (chat, timestamp)
    with ChannelRun(CHECKS, "Signal", "sigil-signal-", lambda state_dir: Fake(state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        report = os.urandom(2000) + b"%PDF-not-really"
        files = file_folder(tmp, [("report.pdf", report)])
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "report", "reply": REPORT_REPLY}, {"match": "slow", "reply": SLOW_REPLY},
                              {"match": "relay", "reply": RELAY_REPLY}, {"match": "late", "reply": LATE_REPLY},
                              {"match": "MARK-", "reply": "<say>Answer to MARK-ECHO.</say>"},
                              {"reply": "<say>Fallback.</say>"}))
        config = write_toml(tmp, serve_toml(tmp) + replay_model_toml(replay, 40) + '[agent]\nsay_mode = true\n'
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[[actions.message_targets]]\nchannel = "signal"\nchat = "{BOB}"\n'
                                 f'[channels.signal]\nrpc_url = "{fake.url}"\naccount = "{ACCOUNT}"\n'
                                 f'allowed_users = ["{ALICE}"]\nallowed_groups = ["{GROUP}"]\nrequest_timeout = 3\n')

        def start(name):
            return run.start(sigil, config, name)

        def streams_opened():
            return sum(1 for e in fake.entries(kind="events") if e.get("event") == "opened")

        server = start("serve1.log")
        check(any("sigil: signal: " + ACCOUNT + " via signal-cli at " + fake.url in line for line in server.out),
              "serve says which account and signal-cli it uses")
        wait_for("the event stream", lambda: streams_opened() >= 1, server)

        # 1. The report: reaction, say block, file, say block; nothing else.
        seq = fake.last_seq()
        msg = fake.write("please send the report")
        written.append((ALICE, msg["timestamp"]))
        wait_for("the report turn", lambda: turn_logged(server, ALICE, msg["timestamp"]), server)
        calls = [e for e in fake.calls(seq) if e["route"] != "sendTyping"]
        kinds = [e["route"] for e in calls]
        print("journal (report):", kinds)
        check(kinds == ["sendReaction", "send", "send", "send"], f"exactly the expected calls in order: {kinds}")
        check(all("error" not in e for e in calls), "signal-cli took every call")
        react = calls[0]["params"]
        check(react.get("emoji") == "👍" and react.get("targetAuthor") == ALICE and
              react.get("targetTimestamp") == msg["timestamp"] and react.get("recipient") == [ALICE],
              f"👍 on the user's message, by its author: {react}")
        shown = fake.bot_messages(ALICE)
        bodies = [m["body"] for m in shown]
        print("bodies:", bodies)
        check(bodies[0] == "Here is the report: it has code and style.", "the say block as plain text")
        styled = [(s["style"], s["text"]) for s in shown[0]["styled"]]
        check(styled == [("BOLD", "the report"), ("MONOSPACE", "code"), ("ITALIC", "style")],
              f"its Markdown as style ranges: {styled}")
        check(bodies[1] == "That is all.", "the second say block is its own message")
        # Say mode holds files to the end of the turn.
        check(shown[2]["attachments"][0]["filename"] == "report.pdf" and
              shown[2]["attachments"][0]["size"] == len(report), "the file as an attachment with its bytes")
        everything = json.dumps([e.get("params") for e in fake.calls(seq)], ensure_ascii=False)
        check("<react" not in everything and "<say" not in everything and "<file" not in everything and
              "**" not in everything and "I should send" not in everything,
              "no directive, no Markdown and no text outside <say> reaches Signal")

        # 2. Not answered: another sender, a group message without a mention. A mention is answered in the group.
        m_bob = fake.write("please send the report", **{"from": "bob"})
        m_all = fake.write("report talk among us", group=GROUP)
        for m, who, why in ((m_bob, BOB, "not in allowed_users"), (m_all, ALICE, "without a mention")):
            line = wait_for(f"{why} ignored", lambda m=m, who=who: ignored(server, who, m["timestamp"]), server)
            check(why in line, f"ignored: {why}")
        m_at = fake.write("MARK-MENTION please", group=GROUP, mention_bot=True, **{"from": "bob"})
        written.append((GROUP, m_at["timestamp"]))
        wait_for("the mention turn", lambda: turn_logged(server, GROUP, m_at["timestamp"]), server)
        group_msgs = fake.bot_messages("group:" + GROUP)
        check(len(group_msgs) == 1 and group_msgs[0]["quote"]["id"] == m_at["timestamp"],
              "one answer in the group, quoting the message that mentioned the bot")
        check(not any(m["body"] == "Fallback." for m in fake.bot_messages(BOB)), "nothing to the sender not allowed")

        # 2b. send-message: for real to an allowed chat (styled as Signal shows it), refused for another.
        seq = fake.last_seq()
        msg = fake.write("relay this")
        written.append((ALICE, msg["timestamp"]))
        wait_for("the relay turn", lambda: turn_logged(server, ALICE, msg["timestamp"]), server)
        relayed = fake.bot_messages(BOB)
        check([m["body"] for m in relayed] == ["Relayed hello"] and
              [(x["style"], x["text"]) for x in relayed[0]["styled"]] == [("BOLD", "hello")],
              f"send-message sent to the allowed chat once, styled: {[m['body'] for m in relayed]}")
        check(not fake.bot_messages("+15550100077") and
              all("+15550100077" not in json.dumps(e.get("params")) for e in fake.calls(seq)),
              "nothing to a chat not allowed")

        # 2c. A late <no-reply/>: what was said is deleted again (remoteDelete); the person sees nothing.
        seq = fake.last_seq()
        msg = fake.write("a late one")
        written.append((ALICE, msg["timestamp"]))
        wait_for("the late turn", lambda: turn_logged(server, ALICE, msg["timestamp"]), server)
        late = [e["route"] for e in fake.calls(seq) if e["route"] in ("send", "remoteDelete")]
        check(late == ["send", "remoteDelete"], f"the said message is deleted again: {late}")
        said = [m for m in fake.bot_messages(ALICE) if m["body"] == "Let me look into that."]
        check(len(said) == 1 and said[0]["deleted"], "the person sees it deleted")

        # 2d. An attachment a person sends: fetched with getAttachment and kept where the file actions find it.
        notes = os.urandom(500)
        seq = fake.last_seq()
        msg = fake.write("MARK-FILE here are my notes", attachments=[
            {"filename": "notes.bin", "content_type": "application/octet-stream",
             "data_base64": base64.b64encode(notes).decode()}])
        written.append((ALICE, msg["timestamp"]))
        wait_for("the file turn", lambda: turn_logged(server, ALICE, msg["timestamp"]), server)
        check(len(fake.calls(seq, "getAttachment")) == 1, "the attachment was fetched once")
        kept = os.path.join(files, "signal", "_" + ALICE[1:], f"{msg['timestamp']}-notes.bin")
        check(os.path.exists(kept) and open(kept, "rb").read() == notes, f"the attachment is kept as {kept}")

        # 3. Faults. A dropped stream; a message written during the drop arrives on the next one.
        opened = streams_opened()
        fake.admin("/_fake/events/drop", {})
        msg = fake.write("MARK-DROP")
        written.append((ALICE, msg["timestamp"]))
        wait_for("the turn of the message written during the drop",
                 lambda: turn_logged(server, ALICE, msg["timestamp"]), server)
        check(streams_opened() > opened, "the event stream was opened again")

        # A time-out after the send went through: shown once, never sent again (in doubt).
        fake.admin("/_fake/faults", {"match": "send", "kind": "timeout"})
        seq = fake.last_seq()
        msg = fake.write("MARK-TIMEOUT")
        written.append((ALICE, msg["timestamp"]))
        wait_for("the time-out turn", lambda: turn_logged(server, ALICE, msg["timestamp"]), server)
        sends = fake.calls(seq, "send")
        check(len(sends) == 1, f"the send whose answer never came was not repeated: {len(sends)} calls")
        line = next(l for l in server.err if turn_line(ALICE, msg["timestamp"]) in l)
        check("in_doubt" in line or "outcome unknown" in line, f"the turn's log names the send in doubt: {line}")

        health = channel_health(CHECKS, server, "signal")
        check(health["mode"] == "sse" and health["state"] == "connected", f"/healthz shows the Signal channel: {health}")
        check('sigil_channel_connected{channel="signal"} 1' in metrics_text(server), "/metrics says it is connected")

        # 4. SIGKILL while a turn runs (its message recorded: the typing indicator is the turn's first call), and
        # a message written while sigil is down; then a restart.
        seq = fake.last_seq()
        slow = fake.write("a slow one please")
        written.append((ALICE, slow["timestamp"]))
        wait_for("the slow turn started (recorded)", lambda: fake.calls(seq, "sendTyping"), server)
        server.stop(signal.SIGKILL)
        away = fake.write("MARK-AWAY while sigil is down")
        written.append((ALICE, away["timestamp"]))
        server = start("serve2.log")
        wait_for("the slow turn after the restart", lambda: turn_logged(server, ALICE, slow["timestamp"]), server)
        check(any(f"signal-resume message={ALICE}/{slow['timestamp']}" in line for line in server.err),
              "the recorded, unfinished message is resumed at start")
        wait_for("the message written while down", lambda: turn_logged(server, ALICE, away["timestamp"]), server)

        # The count over every message written.
        check_answered_once(CHECKS, tmp, {(c, ts): turn_line(c, ts) for c, ts in written})
        check_shown_once(CHECKS, [m["body"] or "" for m in fake.bot_messages(ALICE)], 4, "file, drop, time-out, away")

        run.stop_cleanly("sigil serve stops cleanly on SIGTERM")
        print("signal_channel_test: all checks passed")


if __name__ == "__main__":
    main()
