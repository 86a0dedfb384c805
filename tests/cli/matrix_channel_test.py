#!/usr/bin/env python3
"""The Matrix channel end to end against the wire-faithful fake (tests/fakes/matrix.mjs).

Usage: matrix_channel_test.py PATH_TO_SIGIL  (run by ctest as cli.matrix_channel_test)

`sigil serve` with [channels.matrix] pointed at the fake homeserver and a replay model in say mode. Through
the fake's admin API users write to the bot; the rooms as a user sees them and the fake's journal (every call,
every txnId, every upload's SHA-256) must show exactly the expected events, nothing twice:
1. a DM: a reaction with the emoji itself, two say blocks as HTML with a plain body, then a file and a voice
   note as uploads and m.file/m.audio events; no markup anywhere;
2. not answered: a user not in allowed_users, a group-room message that does not mention the bot; a mention
   in the group room is answered there; an encrypted room's message gets one plain notice (and a log line);
   an invite from an allowed user is joined;
3. faults, each message answered exactly once: a 429 M_LIMIT_EXCEEDED on the send (one retry after
   retry_after_ms), a time-out after the send went through (repeated with the same txnId: one event), a
   dropped /sync long poll with a message written during the drop;
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
import urllib.parse

from channel_fake import (FAKES, ChannelRun, Checks, FakeServer, channel_health, check_answered_once, check_shown_once,
                          metrics_text, write_replay)
from sigil_serve import file_folder, replay_model_toml, serve_toml, write_toml

FAKE = os.path.join(FAKES, "matrix.mjs")
TOKEN = "syt_c2lnaWw_sigilFakeAccessTokenNotASecret_0AbCdE"
BOT, ALICE, BOB = "@sigil:sigil.test", "@alice:sigil.test", "@bob:sigil.test"
DM, GENERAL, SECRET = "!dm-alice:sigil.test", "!general:sigil.test", "!secret:sigil.test"
CHECKS = Checks("matrix_channel_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for

REPORT_REPLY = ('I should send the report first. <react emoji="👍"/><say>Here is **the report**: it has `code`, '
                'snake_case and a < b & c.</say><file path="report.pdf" mode="doc"/>'
                '<voice>Hello from sigil.</voice><say>That is all.</say>')
SLOW_REPLY = "<say>Slow answer MARK-SLOW " + " ".join(f"word{i}" for i in range(80)) + " end.</say>"


class Fake(FakeServer):
    def __init__(self, state_dir):
        super().__init__(CHECKS, FAKE, state_dir)

    def write(self, body, room=DM, sender=ALICE, **extra):
        fields = {"body": body, "room": room, "sender": sender}
        fields.update(extra)
        return self.admin("/_fake/messages", fields)["event"]

    def room(self, room):
        return self.admin("/_fake/rooms/" + urllib.parse.quote(room, safe=""))["room"]

    def bot_events(self, room, type_="m.room.message"):
        return [e for e in self.room(room)["events"] if e["sender"] == BOT and e["type"] == type_]

    def calls(self, since=0, route=None):
        return [e for e in self.entries(since, kind="api") if route is None or e.get("route") == route]


def turn_id(event):
    return "mx-" + event["event_id"][1:]


def turn_logged(server, event):
    return any(f"matrix-turn turn={turn_id(event)} " in line for line in server.err)


def ignored(server, event):
    return next((line for line in server.err if f"matrix-ignored event={event['event_id']} " in line), None)


def main():
    sigil = os.path.abspath(sys.argv[1])
    written = []  # the events users wrote that must be answered once
    with ChannelRun(CHECKS, "Matrix", "sigil-matrix-", lambda state_dir: Fake(state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        report = os.urandom(3000) + b"%PDF-not-really"
        files = file_folder(tmp, [("report.pdf", report)])
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "report", "reply": REPORT_REPLY}, {"match": "slow", "reply": SLOW_REPLY},
                              {"match": "MARK-", "reply": "<say>Answer to MARK-ECHO.</say>"},
                              {"reply": "<say>Fallback.</say>"}))
        config = write_toml(tmp, serve_toml(tmp) +
                                 replay_model_toml(replay, 40) + '[agent]\nsay_mode = true\n'
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[channels.matrix]\nhomeserver_url = "{fake.url}"\naccess_token = "{TOKEN}"\n'
                                 f'user_id = "{BOT}"\nallowed_users = ["{ALICE}"]\nrequest_timeout = 3\n')

        def start(name):
            return run.start(sigil, config, name)

        def syncing():
            return any(e.get("route") == "sync" and e.get("since") for e in fake.entries(kind="api"))

        server = start("serve1.log")
        check(any("sigil: matrix: sync via " + fake.url in line for line in server.out),
              "serve says it uses the configured homeserver")
        wait_for("the first incremental /sync", syncing, server)

        # 1. The report: reaction, say block, say block, file, voice note; nothing else.
        seq = fake.last_seq()
        msg = fake.write("please send the report")
        written.append(msg)
        wait_for("the report turn", lambda: turn_logged(server, msg), server)
        sends = [e for e in fake.calls(seq) if e["route"] in ("send", "upload")]
        kinds = [e["route"] + ":" + e["path"].split("/")[-2] if e["route"] == "send" else "upload" for e in sends]
        print("journal (report):", kinds)
        check(kinds == ["send:m.reaction", "send:m.room.message", "send:m.room.message", "upload",
                        "send:m.room.message", "upload", "send:m.room.message"],
              f"exactly the expected calls in order: {kinds}")
        check(all(e["status"] == 200 for e in sends), "the homeserver took every call")
        reaction = fake.bot_events(DM, "m.reaction")[-1]["content"]["m.relates_to"]
        check(reaction == {"rel_type": "m.annotation", "event_id": msg["event_id"], "key": "👍"},
              f"👍 itself as an m.annotation on the user's message: {reaction}")
        shown = [e["content"] for e in fake.bot_events(DM)]
        texts = [c for c in shown if c["msgtype"] == "m.text"]
        print("texts:", [c["formatted_body"] for c in texts])
        check(texts[0]["formatted_body"] == "Here is <strong>the report</strong>: it has <code>code</code>, "
              "snake_case and a &lt; b &amp; c." and texts[0]["format"] == "org.matrix.custom.html",
              "the say block as Matrix HTML (& < escaped)")
        check(texts[0]["body"] == "Here is the report: it has code, snake_case and a < b & c.",
              "with a plain body")
        check(texts[1]["body"] == "That is all.", "the second say block is its own event")
        media = [c for c in shown if c["msgtype"] in ("m.file", "m.audio")]
        check([c["msgtype"] for c in media] == ["m.file", "m.audio"], f"the file, then the voice note: {media}")
        check(media[0]["body"] == "report.pdf", "the file keeps its name")
        check("org.matrix.msc3245.voice" in media[1] and "org.matrix.msc1767.audio" in media[1],
              "the voice note is marked as one")
        uploads = [e for e in sends if e["route"] == "upload"]
        check(uploads[0]["sha256"] == hashlib.sha256(report).hexdigest(), "the file carries report.pdf's bytes")
        everything = json.dumps([e["content"] for e in fake.room(DM)["events"] if e["sender"] == BOT],
                                ensure_ascii=False)
        check("<react" not in everything and "<say" not in everything and "<file" not in everything and
              "<voice" not in everything and "I should send" not in everything,
              "no directive and no text outside <say> reaches Matrix")

        # 2. Not answered: another user, a group message without a mention. Answered: a mention.
        seq = fake.last_seq()
        bob = fake.write("please send the report", room=GENERAL, sender=BOB, mentions=[BOT])
        chatter = fake.write("report talk among us", room=GENERAL)
        for m, why in ((bob, "not in allowed_users"), (chatter, "not addressed")):
            line = wait_for(f"{why} ignored", lambda m=m: ignored(server, m), server)
            check(why in line, f"ignored: {why}")
        mention = fake.write("MARK-MENTION please", room=GENERAL, mentions=[BOT])
        written.append(mention)
        wait_for("the mention turn", lambda: turn_logged(server, mention), server)
        answers = [e for e in fake.bot_events(GENERAL) if "MARK-ECHO" in e["content"]["body"]]
        check(len(answers) == 1, "one answer to the mention, in its room")

        # 2b. An encrypted room: one plain notice, logged; never silence.
        secret = fake.write("MARK-SECRET can you read this", room=SECRET)
        wait_for("the encrypted room's notice", lambda: fake.bot_events(SECRET), server)
        notices = fake.bot_events(SECRET)
        check(len(notices) == 1 and notices[0]["content"]["msgtype"] == "m.notice" and
              "encrypted" in notices[0]["content"]["body"], f"one m.notice about encryption: {notices}")
        check(any("matrix-encrypted" in line and secret["event_id"] in line for line in server.err),
              "the encrypted event is logged")

        # 2c. An invite from alice is joined; a file she sends is downloaded and kept.
        invited = fake.admin("/_fake/invites", {"from": ALICE, "name": "plans"})["room_id"]
        wait_for("the invite joined", lambda: fake.room(invited)["members"].get(BOT) == "join", server)
        notes = os.urandom(500)
        msg = fake.write("MARK-FILE", file={"name": "notes.bin", "data_base64": base64.b64encode(notes).decode()})
        written.append(msg)
        wait_for("the file turn", lambda: turn_logged(server, msg), server)
        kept = [os.path.join(root, f) for root, _, names in os.walk(os.path.join(files, "matrix")) for f in names
                if f.endswith("notes.bin")]
        check(len(kept) == 1 and open(kept[0], "rb").read() == notes, f"the file is kept: {kept}")

        # 3. Faults. A 429 on the answer: one retry after retry_after_ms.
        fake.admin("/_fake/faults", {"match": "send", "kind": "rate_limit", "retry_after_ms": 800})
        seq = fake.last_seq()
        msg = fake.write("MARK-429")
        written.append(msg)
        wait_for("the 429 turn", lambda: turn_logged(server, msg), server)
        sends = fake.calls(seq, "send")
        check([e["status"] for e in sends] == [429, 200], f"429, then sent once: {[e['status'] for e in sends]}")
        check(sends[1]["t_ms"] - sends[0]["t_ms"] >= 750, "the retry waited retry_after_ms")

        # A time-out after the send went through: repeated with the same txnId, stored once.
        fake.admin("/_fake/faults", {"match": "send", "kind": "timeout"})
        seq = fake.last_seq()
        msg = fake.write("MARK-TIMEOUT")
        written.append(msg)
        wait_for("the time-out turn", lambda: turn_logged(server, msg), server)
        sends = fake.calls(seq, "send")
        check(len(sends) == 2 and sends[0]["txn_id"] == sends[1]["txn_id"] and sends[1].get("duplicate"),
              f"the send was repeated with its txnId and deduplicated: {[(e['txn_id'], e.get('duplicate')) for e in sends]}")

        # A dropped /sync long poll; a message written during the drop arrives on the next one.
        wait_for("a waiting long poll dropped", lambda: fake.admin("/_fake/sync/drop", {})["dropped"] > 0, server)
        msg = fake.write("MARK-DROP")
        written.append(msg)
        wait_for("the turn of the message written during the drop", lambda: turn_logged(server, msg), server)

        matrix = channel_health(CHECKS, server, "matrix")
        check(matrix["mode"] == "sync" and matrix["state"] == "connected", f"/healthz shows the channel: {matrix}")
        metrics = metrics_text(server)
        check('sigil_channel_connected{channel="matrix"} 1' in metrics, "/metrics says the sync loop is connected")
        check(TOKEN not in metrics and all(TOKEN not in line for line in server.err + server.out),
              "neither /metrics nor the log shows the token")

        # 4. SIGKILL while a turn runs (its event recorded, not answered), and a message written while sigil is
        # down; then a restart.
        seq = fake.last_seq()
        slow = fake.write("a slow one please")
        written.append(slow)
        wait_for("the slow turn started (typing)", lambda: fake.calls(seq, "typing"), server)
        server.stop(signal.SIGKILL)
        away = fake.write("MARK-AWAY while sigil is down")
        written.append(away)
        server = start("serve2.log")
        wait_for("the slow turn after the restart", lambda: turn_logged(server, slow), server)
        check(any(f"matrix-resume event={slow['event_id']}" in line for line in server.err),
              "the recorded, unfinished event is resumed at start")
        wait_for("the message written while down", lambda: turn_logged(server, away), server)

        # The count over every message written.
        check_answered_once(CHECKS, tmp, {m["event_id"]: f"matrix-turn turn={turn_id(m)} " for m in written})
        check_shown_once(CHECKS, [e["content"].get("body", "") for e in fake.bot_events(DM)], 5,
                         "MARK-FILE, MARK-429, MARK-TIMEOUT, MARK-DROP, MARK-AWAY")

        run.stop_cleanly("sigil serve stops cleanly on SIGTERM")
        print("matrix_channel_test: all checks passed")


if __name__ == "__main__":
    main()
