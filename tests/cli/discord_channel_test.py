#!/usr/bin/env python3
"""The Discord channel end to end against the wire-faithful fake (tests/fakes/discord.mjs).

Usage: discord_channel_test.py PATH_TO_SIGIL  (run by ctest as cli.discord_channel_test)

`sigil serve` with [channels.discord] pointed at the fake (REST and Gateway) and a replay model in say mode.
Through the fake's admin API users write to the bot; the fake's journal (every REST call with its body and the
SHA-256 of uploaded files, every gateway frame) must show exactly the expected calls, in order, nothing twice:
1. a DM: typing, a reaction, two say blocks as Discord Markdown, then (say mode holds them to the end) a file
   and a voice message;
   no markup anywhere (no directive, no text outside <say>); a late <no-reply/> deletes what was said;
   send-message to an allowed channel sends for real, to another one nothing;
2. not answered: a user not in allowed_users, a bot, a guild message that does not mention the bot; a guild
   message that mentions it is answered as a reply;
3. faults, each message answered exactly once: a 429 with retry_after (one retry after the wait), a 502
   (sent again, the nonce keeps it one message), a time-out after the send went through (the nonce
   dedupes), a dropped gateway connection with a message written during the drop (RESUME replays it);
4. SIGKILL during a turn, and a message written while sigil is down: after the restart (RESUME of the kept
   session) each is answered exactly once.
Then the count over every message written: 0 lost, 0 answered twice. Every wait is for an event.
"""
import hashlib
import json
import os
import re
import signal
import sys

from channel_fake import (ChannelRun, Checks, FakeServer, channel_health, check_answered_once, check_shown_once,
                          metrics_text, write_replay)
from channel_fake import DISCORD_FAKE as FAKE, DISCORD_TOKEN as TOKEN
from sigil_serve import file_folder, replay_model_toml, serve_toml, write_toml

BOT = "1200000000000000001"
ALICE, BOB = "1200000000000000300", "1200000000000000301"
GENERAL, RANDOM, DM = "1200000000000000200", "1200000000000000201", "1200000000000000400"
CHECKS = Checks("discord_channel_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for

REPORT_REPLY = ('I should send the report first. <react emoji="👍"/><say>Here is **the report**: it has `code`, '
                'snake_case and a < b.</say><file path="report.pdf" mode="doc"/>'
                '<voice>Hello from sigil.</voice><say>That is all.</say>')
LATE_REPLY = '<say>Let me look into that.</say> On second thought this needs no answer. <no-reply/>'
RELAY_REPLY = ('<say>Relaying.</say><send-message channel="discord" chat="' + RANDOM + '">Relayed *hello*'
               '</send-message><send-message channel="discord" chat="999">leak</send-message>')
REMIND_REPLY = ('<scheduleTask>{"message": "TASK-STRETCH time to stretch", "delay": "1m"}</scheduleTask>'
                "<say>Reminder set.</say>")
TASK_REPLY = "<say>Time to stretch! TASK-DONE</say>"
TEAM = "1200000000000000210"  # a guild channel of its own for the reminder, so its calls mix with no count
SLOW_REPLY = "<say>Slow answer MARK-SLOW " + " ".join(f"word{i}" for i in range(80)) + " end.</say>"


class Fake(FakeServer):
    def __init__(self, state_dir):
        super().__init__(CHECKS, FAKE, state_dir, ["--heartbeat-ms", "1000"])

    def journal(self, since=0, kind="rest"):
        return self.entries(since, kind)

    def write(self, content, **extra):
        body = {"content": content, "channel_id": DM, "author_id": ALICE}
        body.update(extra)
        return self.admin("/_fake/messages", body)["message"]

    def bot_messages(self, channel):
        chan = self.admin(f"/_fake/channels/{channel}")["channel"]
        return [m for m in chan["messages"] if m["author"]["id"] == BOT]


def turn_logged(server, message_id):
    return any(f"discord-turn turn=dc-{message_id} " in line for line in server.err)


def ignored(server, message_id):
    return next((line for line in server.err if f"discord-ignored message={message_id} " in line), None)


def calls_in(entries, channel):
    """The REST calls on one channel, in order, as (method, what) pairs."""
    out = []
    for e in entries:
        route = e["route"]
        if f"/channels/{channel}/" not in route:
            continue
        out.append(e)
    return out


def kind_of(e):
    route = e["route"]
    if route.endswith("/typing"):
        return "typing"
    if "/reactions/" in route:
        return "react"
    if route.startswith("DELETE"):
        return "delete"
    if route.startswith("PATCH"):
        return "edit"
    body = e.get("body") or {}
    if body.get("flags", 0) & 8192:
        return "voice"
    if e.get("files"):
        return "file"
    return "text"


def main():
    sigil = os.path.abspath(sys.argv[1])
    written = []  # (message id, marker that its answer carries, channel)
    with ChannelRun(CHECKS, "Discord", "sigil-discord-", lambda state_dir: Fake(state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        report = os.urandom(3000) + b"%PDF-not-really"
        files = file_folder(tmp, [("report.pdf", report)])
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "is not an allowed target",
                               "reply": "<say>Channel 999 is not allowed.</say>"},
                              {"match": "report", "reply": REPORT_REPLY}, {"match": "late", "reply": LATE_REPLY},
                              {"match": "relay", "reply": RELAY_REPLY}, {"match": "slow", "reply": SLOW_REPLY},
                              {"match": "TASK-STRETCH", "reply": TASK_REPLY},
                              {"match": "remind", "reply": REMIND_REPLY},
                              {"match": "MARK-", "reply": "<say>Answer to MARK-ECHO.</say>"},
                              {"reply": "<say>Fallback.</say>"}))
        config = write_toml(tmp, serve_toml(tmp) +
                                 replay_model_toml(replay, 40) + '[agent]\nsay_mode = true\n'
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[[actions.message_targets]]\nchannel = "discord"\nchat = "{RANDOM}"\n'
                                 f'[channels.discord]\ntoken = "{TOKEN}"\napi_url = "{fake.url}/api/v10"\n'
                                 f'allowed_users = ["{ALICE}"]\nrequest_timeout = 3\n')

        def start(name):
            return run.start(sigil, config, name)

        def sessions():
            return fake.admin("/_fake/gateway/sessions")["sessions"]

        server = start("serve1.log")
        check(any("sigil: discord: gateway via " + fake.url in line for line in server.out),
              "serve says it uses the configured API")
        wait_for("READY", lambda: any(e.get("t") == "READY" for e in fake.journal(kind="gateway")), server)
        identify = [e for e in fake.journal(kind="gateway") if e.get("direction") == "in" and e.get("op") == 2]
        check(len(identify) == 1 and identify[0]["intents"] == (1 << 9) | (1 << 12) | (1 << 15),
              "IDENTIFY with GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT")

        # 0 (first: its minute runs while the rest does). A reminder set in a guild channel.
        fake.admin("/_fake/channels", {"id": TEAM, "type": 0, "name": "team"})
        seq_task = fake.last_seq()
        ask = fake.write(f"<@{BOT}> remind me to stretch", channel_id=TEAM, mentions=[BOT])
        wait_for("the reminder turn", lambda: turn_logged(server, ask["id"]), server)
        texts = [e["body"]["content"] for e in calls_in(fake.journal(seq_task), TEAM) if kind_of(e) == "text"]
        check(texts == ["Reminder set."], f"the reminder is confirmed in the channel: {texts}")

        # 1. The report: reaction, say block, file, voice message, say block; nothing else.
        seq = fake.last_seq()
        msg = fake.write("please send the report")
        written.append((msg["id"], "That is all.", DM))
        wait_for("the report turn", lambda: turn_logged(server, msg["id"]), server)
        calls = calls_in(fake.journal(seq), DM)
        kinds = [kind_of(e) for e in calls]
        print("journal (report):", kinds)
        check(kinds[0] == "typing", "the turn starts with the typing indicator")
        shown = [k for k in kinds if k != "typing"]
        # Files and voice notes of a say-mode reply go after its last say block (docs/directives.md).
        check(shown == ["react", "text", "text", "file", "voice"], f"exactly the expected calls in order: {shown}")
        check(all(e["status"] in (200, 204) for e in calls), "Discord took every call")
        react = next(e for e in calls if kind_of(e) == "react")
        check(react["route"] == f"PUT /channels/{DM}/messages/{msg['id']}/reactions/%F0%9F%91%8D/@me",
              "the reaction is 👍 (URL-encoded) on the user's message")
        texts = [e["body"]["content"] for e in calls if kind_of(e) == "text"]
        print("texts:", texts)
        check(texts[0] == "Here is **the report**: it has `code`, snake\\_case and a < b.",
              "the say block rendered as Discord Markdown (literal _ escaped)")
        check(texts[1] == "That is all.", "the second say block is its own message")
        everything = json.dumps([e.get("body") for e in calls], ensure_ascii=False)
        check("<react" not in everything and "<say" not in everything and "<file" not in everything and
              "I should send" not in everything, "no directive and no text outside <say> reaches Discord")
        creates = [e for e in calls if e["route"].startswith("POST") and e["route"].endswith("/messages")]
        check(all(e["body"].get("enforce_nonce") is True and e["body"].get("nonce") for e in creates) and
              len({e["body"]["nonce"] for e in creates}) == len(creates), "every create has its own nonce")
        doc = next(e for e in calls if kind_of(e) == "file")
        check(doc["files"][0]["sha256"] == hashlib.sha256(report).hexdigest() and
              doc["files"][0]["filename"] == "report.pdf", "the file carries report.pdf's bytes")
        voice = next(e for e in calls if kind_of(e) == "voice")
        att = voice["body"]["attachments"][0]
        check(voice["files"][0]["content_type"].startswith("audio/ogg") and att["duration_secs"] > 0 and
              att["waveform"] and not voice["body"].get("content"),
              "the voice message: Ogg Opus, duration_secs, waveform, no content")

        # 1b. A late <no-reply/>: what was said is taken back; the user sees nothing.
        seq = fake.last_seq()
        before = len(fake.bot_messages(DM))
        msg = fake.write("a late one")
        wait_for("the late turn", lambda: turn_logged(server, msg["id"]), server)
        late = [e for e in calls_in(fake.journal(seq), DM) if kind_of(e) != "typing"]
        kinds = [kind_of(e) for e in late]
        print("journal (late):", kinds)
        # The say block went out when it closed; the sentinel after it takes it back.
        check(kinds == ["text", "delete"] and late[1]["route"].endswith("/messages/" + late[0]["response"]["id"]),
              f"the said message is deleted again: {kinds}")
        check(len(fake.bot_messages(DM)) == before, "the user sees no new message")

        # 1c. send-message: for real to an allowed channel, refused for another.
        seq = fake.last_seq()
        msg = fake.write("relay this")
        wait_for("the relay turn", lambda: turn_logged(server, msg["id"]), server)
        relayed = [e for e in calls_in(fake.journal(seq), RANDOM) if kind_of(e) == "text"]
        check(len(relayed) == 1 and relayed[0]["body"]["content"] == "Relayed *hello*",
              "send-message sent to the allowed channel once")
        check(all("/channels/999/" not in e["route"] for e in fake.journal(seq)), "nothing to a channel not allowed")
        texts = [e["body"]["content"] for e in calls_in(fake.journal(seq), DM) if kind_of(e) == "text"]
        check(texts == ["Relaying.", "Channel 999 is not allowed."], f"the reply around it: {texts}")

        # 2. Not answered: another user, a bot, a guild message without a mention. Answered: with a mention.
        seq = fake.last_seq()
        m_bob = fake.write("please send the report", author_id=BOB)
        m_bot = fake.write("please send the report", author={"id": "1200000000000000900", "username": "otherbot",
                                                              "bot": True})
        m_all = fake.write("report talk among us", channel_id=GENERAL)
        for m, why in ((m_bob, "not in allowed_users"), (m_bot, "sent by a bot"), (m_all, "not addressed")):
            line = wait_for(f"{why} ignored", lambda m=m: ignored(server, m["id"]), server)
            check(why in line, f"ignored: {why}")
        m_at = fake.write(f"<@{BOT}> MARK-GUILD please", channel_id=GENERAL, mentions=[BOT])
        written.append((m_at["id"], "Answer to MARK-ECHO.", GENERAL))
        wait_for("the guild turn", lambda: turn_logged(server, m_at["id"]), server)
        guild = [e for e in calls_in(fake.journal(seq), GENERAL) if kind_of(e) == "text"]
        check(len(guild) == 1 and guild[0]["body"].get("message_reference", {}).get("message_id") == m_at["id"],
              "one answer in the guild channel, replying to the message that mentioned the bot")
        check(not [e for e in fake.journal(seq) if m_bob["id"] in e["route"] or m_bot["id"] in e["route"] or
                   m_all["id"] in e["route"]], "no call at all for the ignored messages")

        # 0b. The task fires (a minute after it was set) as a turn of its own; its answer goes to the channel it
        # was set from, once.
        def task_answers():
            return [e for e in calls_in(fake.journal(seq_task), TEAM)
                    if kind_of(e) == "text" and "TASK-DONE" in e["body"]["content"]]
        wait_for("the scheduled task's answer in its channel", task_answers, server)
        wait_for("the task turn's log line", lambda: any("discord-task task=" in line for line in server.err), server)
        done = task_answers()
        check(len(done) == 1 and done[0]["body"]["content"] == "Time to stretch! TASK-DONE" and
              done[0]["body"].get("enforce_nonce") is True, "the reminder arrives once, whole, with a nonce")

        # 3. Faults.
        def text_sends_under(fault, mark, what):
            """With the fault set on message creates, a message MARK is written; the text sends of its turn."""
            fake.admin("/_fake/faults", {"match": "POST /channels/*/messages", **fault})
            seq = fake.last_seq()
            msg = fake.write(mark)
            written.append((msg["id"], "Answer to MARK-ECHO.", DM))
            wait_for(what, lambda: turn_logged(server, msg["id"]), server)
            return [e for e in calls_in(fake.journal(seq), DM) if kind_of(e) == "text"]

        # A 429 with retry_after: one retry after the wait.
        sends = text_sends_under({"kind": "rate_limit", "retry_after": 1}, "MARK-429", "the 429 turn")
        check([e["status"] for e in sends] == [429, 200], f"429, then sent once: {[e['status'] for e in sends]}")
        check(sends[1]["t_ms"] - sends[0]["t_ms"] >= 950, "the retry waited retry_after (1 s)")

        # A 502 on the create: sent again with the same nonce.
        sends = text_sends_under({"kind": "status", "status": 502}, "MARK-502", "the 502 turn")
        check([e["status"] for e in sends] == [502, 200] and sends[0]["body"]["nonce"] == sends[1]["body"]["nonce"],
              "502, then the same create (same nonce) again")

        # A time-out after the send went through: sent again, the nonce keeps it one message.
        sends = text_sends_under({"kind": "timeout"}, "MARK-TIMEOUT", "the time-out turn")
        check(len(sends) == 2 and sends[0]["body"]["nonce"] == sends[1]["body"]["nonce"],
              "the create whose answer never came was made again with its nonce")
        check(sends[1]["status"] == 200 and
              [m["id"] for m in fake.bot_messages(DM) if m["content"] == "Answer to MARK-ECHO."][-1] ==
              sends[1]["response"]["id"], "Discord answered the repeat with the message it already had")

        # A dropped gateway connection; a message written during the drop is replayed by RESUME.
        fake.admin("/_fake/gateway/drop", {})
        msg = fake.write("MARK-DROP")
        written.append((msg["id"], "Answer to MARK-ECHO.", DM))
        wait_for("the turn of the message written during the drop", lambda: turn_logged(server, msg["id"]), server)
        check(any(s["resumes"] >= 1 for s in sessions()), "the gateway RESUMEd the session")
        resume = [e for e in fake.journal(kind="gateway") if e.get("direction") == "in" and e.get("op") == 6]
        check(len(resume) >= 1 and resume[0].get("resume_seq", 0) > 0, "RESUME carried the last seq")

        discord = channel_health(CHECKS, server, "discord")
        check(discord["mode"] == "gateway" and discord["state"] == "connected" and
              isinstance(discord["running_turns"], int) and isinstance(discord["pending_updates"], int),
              f"/healthz shows the Discord channel's state: {discord}")
        metrics = metrics_text(server)
        retries = re.search(r'^sigil_channel_retries_total\{channel="discord",api="rest"\} (\d+)$', metrics, re.M)
        check(retries is not None and int(retries.group(1)) >= 3, "/metrics counts the Discord retries")
        check(re.search(r'^sigil_channel_connected\{channel="discord"\} 1$', metrics, re.M) is not None,
              "/metrics says the gateway is connected")
        check(TOKEN not in metrics and all(TOKEN not in line for line in server.err),
              "neither /metrics nor the log shows the token")

        # 4. SIGKILL while a turn runs, and a message written while sigil is down; then a restart.
        seq = fake.last_seq()
        slow = fake.write("a slow one please")
        written.append((slow["id"], "MARK-SLOW", DM))
        wait_for("the slow turn's typing", lambda: any(
            kind_of(e) == "typing" for e in calls_in(fake.journal(seq), DM)), server)
        server.stop(signal.SIGKILL)
        away = fake.write("MARK-AWAY while sigil is down")
        written.append((away["id"], "Answer to MARK-ECHO.", DM))
        server = start("serve2.log")
        wait_for("the slow turn after the restart", lambda: turn_logged(server, slow["id"]), server)
        check(any(f"discord-resume message={slow['id']}" in line for line in server.err),
              "the recorded, unfinished message is resumed at start")
        wait_for("the message written while down", lambda: turn_logged(server, away["id"]), server)
        check(sum(s["resumes"] for s in sessions()) >= 2, "the restarted gateway RESUMEd the kept session")

        # The count over every message written.
        creates = [e for e in fake.journal() if e["route"].startswith("POST /channels/") and
                   e["route"].endswith("/messages") and e["status"] == 200]
        check_answered_once(CHECKS, tmp, {mid: f"discord-turn turn=dc-{mid} " for mid, _, _ in written})
        echo_dm = sum(1 for _, marker, ch in written if marker == "Answer to MARK-ECHO." and ch == DM)
        check_shown_once(CHECKS, [m.get("content") or "" for m in fake.bot_messages(DM)], echo_dm, "the fault tests")
        nonces = [e["body"]["nonce"] for e in creates]
        dupes = len(nonces) - len(set(nonces))
        shown_ids = [e["response"]["id"] for e in creates if e.get("response")]
        check(len(shown_ids) - len(set(shown_ids)) == dupes, "every repeated nonce came back as the same message")

        run.stop_cleanly("sigil serve stops cleanly on SIGTERM")
        print("discord_channel_test: all checks passed")


if __name__ == "__main__":
    main()
