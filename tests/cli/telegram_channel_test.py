#!/usr/bin/env python3
"""The Telegram channel end to end against the wire-faithful fake (tests/fakes/telegram.mjs).

Usage: telegram_channel_test.py PATH_TO_SIGIL  (run by ctest as cli.telegram_channel_test)

`sigil serve` with [channels.telegram] pointed at the fake and a replay model. Through the fake's admin API
a user writes to the bot; the fake's journal (every Bot API call sigil made, with its parameters and the
SHA-256 of uploaded files) must show exactly the expected calls, in order, nothing twice:
1. a reply with a reaction, Markdown text and two files: sendChatAction, setMessageReaction, sendMessage
   (valid HTML, no raw markup), sendDocument and sendPhoto (the files' bytes), sendMessage;
2. a 429 (retry_after 1) injected on sendMessage: the message is sent once, after the wait;
3. a user not in allowed_users gets nothing at all; in a group only a message mentioning the bot is answered;
   in a group whose admins allow only 👍, a ❤️ reaction is skipped (never sent to be refused) and 👍 is sent;
   and when the connection drops after Telegram took a message (outcome unknown), it is not sent again;
4. sigil killed with SIGKILL while a turn runs, then restarted: that message is answered exactly once;
5. sigil killed with SIGKILL right after a message was written, then restarted: answered exactly once;
6. an update sigil recorded before, delivered again (a second fake reusing its id): no turn, no call;
7. a task scheduled from the Telegram chat (due a minute later, while the rest runs) arrives in that chat.
Every wait is for an event (a journal entry, a log line), never a fixed sleep.
"""
import hashlib
import os
import re
import signal
import sys

from channel_fake import ChannelRun, Checks, FakeServer, channel_health, metrics_text, png_bytes, write_replay
from channel_fake import TELEGRAM_FAKE as FAKE, TELEGRAM_TOKEN as TOKEN
from sigil_serve import file_folder, replay_model_toml, serve_toml, write_toml

ALICE = 1001
CHECKS = Checks("telegram_channel_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for

REPORT_REPLY = ('<react emoji="👍"/>Here is **the report** you asked for: it has `code`, a < b & c, and '
                '[a link](https://example.com/?a=1&b=2).\n\n<file path="report.pdf" mode="doc"/>'
                '<file path="pic.png" mode="photo"/>That is all.')
QUOTA_REPLY = "Plain answer for the quota check."
STRICT_REPLY = '<react emoji="❤️"/><react emoji="thumbsup"/>Noted.'
RELAY_REPLY = ('Relaying. <sendTelegram>{"chat":"1001","text":"Relayed *hello*"}</sendTelegram>'
               '<sendTelegram>{"chat":"999","text":"leak"}</sendTelegram> Done.')
VOICE_REPLY = "Listen: <voice>Hello from sigil.</voice>"
SLOW_REPLY = "Slow answer MARK-SLOW " + " ".join(f"word{i}" for i in range(60)) + " end."
QUICK_REPLY = "Quick answer MARK-QUICK after the restart."
REMIND_REPLY = ('<scheduleTask>{"message": "MARK-TASK time to stretch", "delay": "1m"}</scheduleTask>'
                "Reminder set.")
TASK_REPLY = "Time to stretch! MARK-TASK-DONE"


class Fake(FakeServer):
    def __init__(self, state_dir, extra=()):
        super().__init__(CHECKS, FAKE, state_dir, extra)

    def journal(self, since=0):
        return self.entries(since, "api")

    def write(self, text, sender=None):
        body = {"text": text}
        if sender:
            body["from"] = sender
            body["chat_id"] = sender["id"]
        return self.admin("/_fake/messages", body)


def turn_logged(server, update_id):
    return any(f"telegram-turn turn=tg-{update_id} " in line for line in server.err)


def calls_for(entries, chat):
    """The Bot API calls of one chat, in order (getUpdates/getMe have no chat)."""
    return [e for e in entries if str(e.get("params", {}).get("chat_id")) == str(chat)]


def main():
    sigil = os.path.abspath(sys.argv[1])
    with ChannelRun(CHECKS, "Telegram", "sigil-telegram-", lambda state_dir: Fake(state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        report = os.urandom(3000) + b"%PDF-not-really"
        png = png_bytes()
        files = file_folder(tmp, [("report.pdf", report), ("pic.png", png)])
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "is not an allowed target", "reply": "Chat 999 is not allowed."},
                              {"match": "MARK-TASK", "reply": TASK_REPLY}, {"match": "remind", "reply": REMIND_REPLY},
                              {"match": "report", "reply": REPORT_REPLY}, {"match": "quota", "reply": QUOTA_REPLY},
                              {"match": "strict", "reply": STRICT_REPLY},
                              {"match": "relay", "reply": RELAY_REPLY}, {"match": "voice", "reply": VOICE_REPLY},
                              {"match": "slow", "reply": SLOW_REPLY}, {"match": "quick", "reply": QUICK_REPLY},
                              {"reply": "Fallback."}))
        config = write_toml(tmp, serve_toml(tmp) +
                                 replay_model_toml(replay, 40) +
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[channels.telegram]\ntoken = "{TOKEN}"\napi_url = "{fake.url}"\n'
                                 f'allowed_users = [{ALICE}]\npoll_timeout = 5\n'
                                 # Each message sent once, final: the exact call sequences below (streaming by edits has
                                 # its own test, telegram_stream_test.py).
                                 'stream = false\n')

        def start(name):
            return run.start(sigil, config, name)

        server = start("serve1.log")
        check(any("sigil: telegram: polling " + fake.url in line for line in server.out),
              "serve says it polls the configured Bot API")
        wait_for("the first getUpdates", lambda: any(e["route"] == "getUpdates" for e in fake.journal()), server)
        check(all(TOKEN not in line for line in server.err), "the log never shows the bot token")

        # 7 (first: its minute runs while the rest does). A reminder set from the chat.
        # In a group of its own, so its later messages do not mix with the calls the other steps count.
        team = -100777
        fake.admin("/_fake/chats", {"id": team, "type": "group", "title": "Team"})
        seq_task = fake.last_seq()
        sent = fake.admin("/_fake/messages", {"text": "@sigil_test_bot remind me to stretch", "chat_id": team})
        wait_for("the reminder turn", lambda: turn_logged(server, sent["update_id"]), server)
        texts = [e["params"]["text"] for e in calls_for(fake.journal(seq_task), team) if e["route"] == "sendMessage"]
        check(texts == ["Reminder set."], f"the reminder is confirmed in the chat: {texts}")

        # 1. Reaction, Markdown text, two files, text.
        seq = fake.last_seq()
        sent = fake.write("please send the report")
        update_id, message_id = sent["update_id"], sent["message"]["message_id"]
        wait_for("the report turn", lambda: turn_logged(server, update_id), server)
        calls = calls_for(fake.journal(seq), ALICE)
        routes = [e["route"] for e in calls]
        print("journal (report):", routes)
        check(routes[0] == "sendChatAction" and calls[0]["params"].get("action") == "typing",
              "the turn starts with sendChatAction typing")
        shown = [r for r in routes if r != "sendChatAction"]
        check(shown == ["setMessageReaction", "sendMessage", "sendDocument", "sendPhoto", "sendMessage"],
              f"exactly the expected calls in order: {shown}")
        check(all(e["status"] == 200 for e in calls), "Telegram took every call")
        react = next(e for e in calls if e["route"] == "setMessageReaction")
        check(react["params"]["message_id"] == message_id and
              react["params"]["reaction"] == [{"type": "emoji", "emoji": "👍"}],
              "the reaction is 👍 on the user's message")
        text = next(e for e in calls if e["route"] == "sendMessage")["params"]
        check(text.get("parse_mode") == "HTML", "text is sent as HTML")
        html = text["text"]
        print("html:", html)
        check("<b>the report</b>" in html and "<code>code</code>" in html and "a &lt; b &amp; c" in html and
              '<a href="https://example.com/?a=1&amp;b=2">a link</a>' in html, "Markdown rendered to HTML")
        check("**" not in html and "<react" not in html and "<file" not in html and "`" not in html,
              "no raw markup or directives in the text")
        doc = next(e for e in calls if e["route"] == "sendDocument")
        photo = next(e for e in calls if e["route"] == "sendPhoto")
        check(doc["files"][0]["sha256"] == hashlib.sha256(report).hexdigest() and
              doc["files"][0]["filename"] == "report.pdf", "sendDocument carries report.pdf's bytes")
        check(photo["files"][0]["sha256"] == hashlib.sha256(png).hexdigest(), "sendPhoto carries pic.png's bytes")
        last = [e for e in calls if e["route"] == "sendMessage"][-1]["params"]["text"]
        check(last == "That is all.", f"the text after the files is its own message: {last!r}")

        # 1b. <sendTelegram> sends for real, to allowed chats only (1001 is in allowed_users; 999 is not).
        seq = fake.last_seq()
        sent = fake.write("relay this")
        wait_for("the relay turn", lambda: turn_logged(server, sent["update_id"]), server)
        routes = [e["route"] for e in fake.journal(seq) if e["route"] not in ("getUpdates", "sendChatAction")]
        texts = [e["params"]["text"] for e in calls_for(fake.journal(seq), ALICE) if e["route"] == "sendMessage"]
        print("journal (relay):", routes, texts)
        # The relayed text goes when the action runs; the reply's text around it is two messages (a delivery
        # ends the open text message); the refused target's error goes back to the model: a second reply.
        check(texts == ["Relayed <i>hello</i>", "Relaying.", "Done.", "Chat 999 is not allowed."],
              f"the relayed message once, then the reply: {texts}")
        check(routes == ["sendMessage"] * 4, f"nothing but those messages: {routes}")
        check(calls_for(fake.journal(seq), 999) == [], "nothing to a chat that is not allowed")

        # 1c. A voice note where the user refuses voice messages: sendVoice 400, then the same bytes by sendAudio.
        fake.admin("/_fake/chats", {"id": ALICE, "type": "private", "voice_forbidden": True})
        seq = fake.last_seq()
        sent = fake.write("a voice note please")
        wait_for("the voice turn", lambda: turn_logged(server, sent["update_id"]), server)
        calls = [e for e in calls_for(fake.journal(seq), ALICE) if e["route"] != "sendChatAction"]
        print("journal (voice):", [(e["route"], e["status"]) for e in calls])
        check([(e["route"], e["status"]) for e in calls] ==
              [("sendMessage", 200), ("sendVoice", 400), ("sendAudio", 200)],
              "sendVoice refused (VOICE_MESSAGES_FORBIDDEN), then sendAudio")
        check(calls[1]["files"][0]["sha256"] == calls[2]["files"][0]["sha256"] and
              calls[1]["files"][0]["content_type"].startswith("audio/ogg"), "the same Ogg bytes both times")
        fake.admin("/_fake/chats", {"id": ALICE, "type": "private", "voice_forbidden": False})

        # 2. A 429 with retry_after 1 on sendMessage: one retry after the wait, one message.
        fake.admin("/_fake/faults", {"match": "sendMessage", "kind": "rate_limit", "retry_after": 1, "times": 1})
        seq = fake.last_seq()
        sent = fake.write("quota check")
        wait_for("the quota turn", lambda: turn_logged(server, sent["update_id"]), server)
        sends = [e for e in calls_for(fake.journal(seq), ALICE) if e["route"] == "sendMessage"]
        print("journal (429):", [(e["route"], e["status"]) for e in sends])
        check([e["status"] for e in sends] == [429, 200], "sendMessage: 429, then sent once")
        check(sends[1]["t_ms"] - sends[0]["t_ms"] >= 1000, "the retry waited retry_after (1 s)")
        check(sends[1]["params"]["text"] == QUOTA_REPLY, "the plain answer arrived whole")
        chat = fake.admin(f"/_fake/chats/{ALICE}")["chat"]
        mine = [m for m in chat["messages"] if m.get("from", {}).get("is_bot") and m.get("text") == QUOTA_REPLY]
        check(len(mine) == 1, "the user sees the answer once")

        telegram = channel_health(CHECKS, server, "telegram")
        # The last call that failed for good was the refused voice note (1c); the 429 was waited out.
        check(telegram["mode"] == "polling" and telegram["state"] == "polling" and
              "VOICE_MESSAGES_FORBIDDEN" in (telegram["last_error"] or "") and telegram["pending_updates"] == 0,
              f"/healthz shows the Telegram channel's state and its last error: {telegram}")
        metrics = metrics_text(server)
        retries = re.search(r'^sigil_channel_retries_total\{channel="telegram",api="send"\} (\d+)$', metrics, re.M)
        check(retries is not None and int(retries.group(1)) >= 1, "/metrics counts the Telegram retry")
        check(TOKEN not in metrics, "/metrics never shows the token")
        check(re.search(r'^sigil_channel_connected\{channel="telegram"\} 1$', metrics, re.M) is not None,
              "/metrics shows the channel receiving (polling)")
        check(re.search(r'^sigil_channel_paced_total\{channel="telegram",api="send"\} 0$', metrics, re.M) is not None,
              "/metrics counts paced calls (none: a few messages are within Telegram's limits)")
        check(metrics.count("# TYPE sigil_channel_connected gauge") == 1, "one TYPE line per metric")

        # 2b. The connection drops after Telegram took the message (outcome unknown): never sent again.
        fake.admin("/_fake/faults", {"match": "sendMessage", "kind": "drop_after_send", "times": 1})
        seq = fake.last_seq()
        sent = fake.write("quota check again")
        wait_for("the in-doubt turn", lambda: turn_logged(server, sent["update_id"]), server)
        sends = [e for e in calls_for(fake.journal(seq), ALICE) if e["route"] == "sendMessage"]
        check(len(sends) == 1, f"the message whose answer was lost is not sent again ({len(sends)} calls)")
        line = next(l for l in server.err if f"telegram-turn turn=tg-{sent['update_id']} " in l)
        check("in_doubt=" in line and "outcome unknown" in line, "the turn log reports the send as in doubt")
        chat = fake.admin(f"/_fake/chats/{ALICE}")["chat"]
        mine = [m for m in chat["messages"] if m.get("from", {}).get("is_bot") and m.get("text") == QUOTA_REPLY]
        check(len(mine) == 2, "the user got it (once), although sigil could not know")

        # 3. A user not in allowed_users: nothing at all.
        seq = fake.last_seq()
        mallory = {"id": 4242, "first_name": "Mallory"}
        sent = fake.write("please send the report", mallory)
        wait_for("the ignored update", lambda: any(
            f"telegram-ignored update={sent['update_id']} " in line for line in server.err), server)
        check(calls_for(fake.journal(seq), 4242) == [], "no call at all for a user not in allowed_users")

        # 3b. A group: a message that does not address the bot is ignored; one that mentions it is answered,
        # as a reply to it.
        group = -100123
        fake.admin("/_fake/chats", {"id": group, "type": "group", "title": "Friends"})
        seq = fake.last_seq()
        ignored = fake.admin("/_fake/messages", {"text": "quota talk among us", "chat_id": group})
        wait_for("the group message ignored", lambda: any(
            f"telegram-ignored update={ignored['update_id']} " in line for line in server.err), server)
        asked = fake.admin("/_fake/messages", {"text": "@sigil_test_bot quota please", "chat_id": group})
        wait_for("the group turn", lambda: turn_logged(server, asked["update_id"]), server)
        sends = [e for e in calls_for(fake.journal(seq), group) if e["route"] == "sendMessage"]
        check(len(sends) == 1 and sends[0]["params"]["text"] == QUOTA_REPLY, "one answer in the group")
        check(sends[0]["params"].get("reply_parameters", {}).get("message_id") == asked["message"]["message_id"],
              "it replies to the message that mentioned the bot")

        # 3c. A group whose admins allow only 👍 (getChat's available_reactions): ❤️ is not sent, 👍 is.
        strict = -100600
        fake.admin("/_fake/chats", {"id": strict, "type": "supergroup", "title": "Strict",
                                    "available_reactions": ["👍"]})
        seq = fake.last_seq()
        asked = fake.admin("/_fake/messages", {"text": "@sigil_test_bot strict rules", "chat_id": strict})
        wait_for("the strict group's turn", lambda: turn_logged(server, asked["update_id"]), server)
        calls = calls_for(fake.journal(seq), strict)
        reactions = [e["params"]["reaction"] for e in calls if e["route"] == "setMessageReaction"]
        check(reactions == [[{"type": "emoji", "emoji": "👍"}]], f"only the allowed reaction is sent: {reactions}")
        check(all(e["status"] == 200 for e in calls), "Telegram refused nothing in the strict group")
        check([e["params"]["text"] for e in calls if e["route"] == "sendMessage"] == ["Noted."], "and the text")
        check(sum(e["route"] == "getChat" for e in calls) == 1, "the chat's reactions were asked once")

        # 7. The task fires (a minute after it was set) as a turn of its own, and its answer goes to the chat
        # it was set from, once.
        wait_for("the scheduled task's answer in the chat", lambda: any(
            e["route"] == "sendMessage" and "MARK-TASK-DONE" in e["params"]["text"]
            for e in calls_for(fake.journal(seq_task), team)), server)
        # The turn's log line comes after its last call: waited for, not assumed.
        check(wait_for("the task turn's log line", lambda: any("telegram-task task=" in line for line in server.err),
                       server), "the task turn is logged as Telegram's")
        done = [e for e in calls_for(fake.journal(seq_task), team)
                if e["route"] == "sendMessage" and "MARK-TASK-DONE" in e["params"]["text"]]
        check(len(done) == 1 and done[0]["params"]["text"] == TASK_REPLY, "the reminder arrives once, whole")

        # 4. SIGKILL while a turn runs (it was recorded: typing went out), then a restart.
        seq = fake.last_seq()
        sent = fake.write("a slow one please")
        slow_id = sent["update_id"]
        wait_for("the slow turn's typing", lambda: any(
            e["route"] == "sendChatAction" for e in calls_for(fake.journal(seq), ALICE)), server)
        server.stop(signal.SIGKILL)
        check(not any(e["route"] == "sendMessage" for e in calls_for(fake.journal(seq), ALICE)),
              "killed before the slow answer was sent")
        server = start("serve2.log")
        wait_for("the slow turn after the restart", lambda: turn_logged(server, slow_id), server)
        check(any(f"telegram-resume update={slow_id}" in line for line in server.err),
              "the recorded, unfinished update is resumed at start")

        # 5. SIGKILL right after the message was written (received or not), then a restart.
        sent = fake.write("quick one")
        quick_id = sent["update_id"]
        before = server
        server.stop(signal.SIGKILL)
        server = start("serve3.log")
        # Usually the killed process had not answered yet; if it had, the restart must not answer again.
        wait_for("the quick turn", lambda: turn_logged(server, quick_id) or turn_logged(before, quick_id), server)

        answers = [e["params"]["text"] for e in calls_for(fake.journal(seq), ALICE) if e["route"] == "sendMessage"]
        check(sum("MARK-SLOW" in t for t in answers) == 1, "the slow message is answered exactly once")
        check(sum("MARK-QUICK" in t for t in answers) == 1, "the quick message is answered exactly once")
        turns = [line for s in ("serve2.log", "serve3.log") for line in open(os.path.join(tmp, s))
                 if "telegram-turn turn=" in line]
        check(sum(f"turn=tg-{slow_id} " in line for line in turns) == 1 and
              sum(f"turn=tg-{quick_id} " in line for line in turns) == 1, "one finished turn each")

        run.stop_cleanly("sigil serve stops cleanly on SIGTERM")

        # 6. Telegram sends an update again that sigil had recorded (its confirmation was lost): no second turn.
        # A second fake whose update ids start at the first message's id plays Telegram redelivering it.
        fake2 = Fake(os.path.join(tmp, "fake2"), ["--first-update-id", str(update_id)])
        try:
            with open(config, encoding="utf-8") as f:
                text = f.read().replace(fake.url, fake2.url)
            with open(config, "w", encoding="utf-8") as f:
                f.write(text)
            server = start("serve4.log")
            again = fake2.write("please send the report")
            check(again["update_id"] == update_id, "the fake redelivers the first update's id")
            wait_for("the duplicate", lambda: any(f"telegram-duplicate update={update_id}" in line
                                                  for line in server.err), server)
            check(calls_for(fake2.journal(), ALICE) == [], "a redelivered update starts no turn and sends nothing")
            run.stop_cleanly("sigil serve stops cleanly again")
        finally:
            fake2.stop()
        print("telegram_channel_test: all checks passed")


if __name__ == "__main__":
    main()
