#!/usr/bin/env python3
"""The Telegram channel with an OpenAI-compatible model: what the model is told and what lands where.

Usage: telegram_model_test.py PATH_TO_SIGIL  (run by ctest as cli.telegram_model_test)

`sigil serve` with [channels.telegram] pointed at the wire-faithful fake (tests/fakes/telegram.mjs) and the
model at a recording fake upstream (images_test.Upstream: scripted chat replies, a PNG for every images
request, every request kept). Every wait is for an event (a log line, a journal entry), never a fixed sleep.
1. Message ids: the model reads "[message <id>]" before each user message (its Telegram message_id) and
   reacts to the first of two messages by that id: setMessageReaction on that message, not on the one being
   answered. An id the conversation does not hold is an error the model reads, and no reaction is sent.
2. Forum topics: a message in a topic is a conversation of its own (its history holds nothing of the private
   chat, nor of the General topic), and every call for it (typing, text, photo) carries its
   message_thread_id; the General topic's answer carries none (Telegram refuses thread 1). A task scheduled
   in the topic answers in the topic.
3. createAIImage in a reply (in the topic): the generated PNG arrives by sendPhoto, the same bytes.
4. A photo the user sends: downloaded, named to the model, and viewImage with that name puts the very bytes
   into the next model call as an image_url content part.
5. Albums (items sent together, one message each with the same media_group_id): one turn for the album,
   with its caption and a line per file, in a private chat and in a group (where only the caption mentions
   the bot); every item's update is finished, none is answered on its own.
"""
import base64
import hashlib
import json
import os
import re
import sqlite3
import sys

from channel_fake import ChannelRun, Checks, FakeServer, png_bytes
from channel_fake import TELEGRAM_FAKE as FAKE, TELEGRAM_TOKEN as TOKEN
from sigil_serve import file_folder, serve_toml, write_toml
from images_test import PNG, Upstream, image_parts

ALICE = 1001
FORUM, TOPIC = -100555, 5
CHECKS = Checks("telegram_model_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for


def turn_logged(server, update_id):
    return any(f"telegram-turn turn=tg-{update_id} " in line for line in server.err)


def user_texts(chat_request):
    """The text of every user message of a model request (a list content's text parts joined)."""
    out = []
    for m in chat_request.get("messages", []):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        out.append(c if isinstance(c, str) else " ".join(p.get("text", "") for p in c if p.get("type") == "text"))
    return out


def main():
    sigil = os.path.abspath(sys.argv[1])
    upstream = Upstream()
    with ChannelRun(CHECKS, "Telegram", "sigil-telegram-model-",
                    lambda state_dir: FakeServer(CHECKS, FAKE, state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        run.at_exit.append(upstream.server.shutdown)
        files = file_folder(tmp)
        config = write_toml(tmp, serve_toml(tmp) +
                                 upstream.model_toml(vision=True) +
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[channels.telegram]\ntoken = "{TOKEN}"\napi_url = "{fake.url}"\n'
                                 f'allowed_users = [{ALICE}]\npoll_timeout = 5\nstream = false\n')
        server = run.start(sigil, config, "serve.log")
        wait_for("the first getUpdates", lambda: any(e["route"] == "getUpdates" for e in fake.entries(0, "api")),
                 server)

        def say(text, reply_list, **extra):
            """A user writes; the model answers with reply_list; returns (sent, the journal of the turn)."""
            upstream.script(*reply_list)
            seq = fake.last_seq()
            sent = fake.admin("/_fake/messages", {"text": text, **extra})
            wait_for(f"the turn of {text!r}", lambda: turn_logged(server, sent["update_id"]), server)
            return sent, fake.entries(seq, "api")

        # 2 (first: the task's minute runs while the rest does). A forum with topic 5; a reminder set there.
        fake.admin("/_fake/chats", {"id": FORUM, "type": "supergroup", "title": "Forum", "is_forum": True,
                                    "topics": [TOPIC]})
        upstream.matches.append(("TOPIC-TASK time to stretch", "Time to stretch! TOPIC-TASK-DONE"))
        remind = '<scheduleTask>{"message": "TOPIC-TASK time to stretch", "delay": "1m"}</scheduleTask>Set.'
        in_topic, calls = say("@sigil_test_bot remind me about it", [remind], chat_id=FORUM,
                              message_thread_id=TOPIC)
        check(in_topic["message"].get("is_topic_message") is True and
              in_topic["message"].get("message_thread_id") == TOPIC, "the fake delivers a topic message")
        made = [e for e in calls if e["route"] in ("sendChatAction", "sendMessage")]
        check([e["route"] for e in made] == ["sendChatAction", "sendMessage"] and
              all(e["status"] == 200 and e["params"].get("message_thread_id") == TOPIC for e in made),
              f"typing and the answer go to the topic: {[(e['route'], e['params']) for e in made]}")

        # 1. Message ids the model can name.
        first, _ = say("first message", ["Noted."])
        m1 = first["message"]["message_id"]
        check(user_texts(upstream.chat_requests[-1])[-1] == f"[message {m1}] first message",
              f"the model reads the message's id before its text: {user_texts(upstream.chat_requests[-1])}")
        second, calls = say("second message", [f'<react emoji="👍" message="{m1}"/>Reacted to your first one.'])
        m2 = second["message"]["message_id"]
        told = user_texts(upstream.chat_requests[-1])
        check(told[-2:] == [f"[message {m1}] first message", f"[message {m2}] second message"],
              f"the history shows both ids: {told}")
        check(not any("remind me" in t for t in told), "nothing of the topic in the private chat")
        reactions = [e for e in calls if e["route"] == "setMessageReaction"]
        check(len(reactions) == 1 and reactions[0]["status"] == 200 and reactions[0]["params"]["message_id"] == m1
              and reactions[0]["params"]["reaction"] == [{"type": "emoji", "emoji": "👍"}],
              f"setMessageReaction on the first message ({m1}), not the second ({m2}): {reactions}")
        texts = [e["params"]["text"] for e in calls if e["route"] == "sendMessage"]
        check(texts == ["Reacted to your first one."], f"the text once: {texts}")
        _, calls = say("third message", ['<react emoji="👍" message="999999"/>', "I cannot find that message."])
        check(not any(e["route"] == "setMessageReaction" for e in calls), "an unknown id sends no reaction")
        results = user_texts(upstream.chat_requests[-1])[-1]
        check('react: error: no message "999999" in this conversation' in results,
              f"the model reads why: {results!r}")
        texts = [e["params"]["text"] for e in calls if e["route"] == "sendMessage"]
        check(texts == ["I cannot find that message."], f"and answers: {texts}")

        # 3. createAIImage in the topic: sendPhoto with the picture's bytes, in the topic.
        draw = 'Here it is: <createAIImage>{"prompt":"a red fox"}</createAIImage> Enjoy.'
        _, calls = say("@sigil_test_bot draw a fox", [draw], chat_id=FORUM, message_thread_id=TOPIC)
        told = user_texts(upstream.chat_requests[0])
        check(any("remind me about it" in t for t in told) and not any("first message" in t for t in told),
              f"the topic's history is its own: {told}")
        check(len(upstream.image_requests) == 1 and upstream.image_requests[0]["prompt"] == "a red fox",
              f"one images request: {upstream.image_requests}")
        photos = [e for e in calls if e["route"] == "sendPhoto"]
        check(len(photos) == 1 and photos[0]["status"] == 200 and
              photos[0]["files"][0]["sha256"] == hashlib.sha256(PNG).hexdigest(),
              f"sendPhoto carries the generated PNG: {photos}")
        made = [e for e in calls if e["route"].startswith("send")]
        # A multipart upload's fields are strings.
        check(all(str(e["params"].get("message_thread_id")) == str(TOPIC) for e in made),
              f"every call of the turn names the topic: {[(e['route'], e['params']) for e in made]}")

        # 2b. The General topic (Telegram shows no thread id; bots must not send 1): its own conversation too.
        _, calls = say("@sigil_test_bot hello general", ["General answer."], chat_id=FORUM, message_thread_id=1)
        told = user_texts(upstream.chat_requests[-1])
        check(len(told) == 1 and "hello general" in told[0], f"General's history is its own: {told}")
        made = [e for e in calls if e["route"] in ("sendChatAction", "sendMessage")]
        check(len(made) == 2 and all(e["status"] == 200 and "message_thread_id" not in e["params"] for e in made),
              f"the General topic's answer names no thread: {[(e['route'], e['params']) for e in made]}")

        # 4. A photo the user sends, then viewImage on the name the model was told.
        photo = png_bytes(side=3, rgb=b"\x00\x80\xff")

        def look(request):
            told = user_texts(request)[-1]
            m = re.search(r"\[the user sent a photo: (\S+) \(", told)
            return f"Let me look. <viewImage>{m.group(1) if m else 'MISSING'}</viewImage>"

        _, calls = say("what is this?", [look, "A small blue square."],
                       file={"kind": "photo", "data_base64": base64.b64encode(photo).decode()})
        check(len(upstream.chat_requests) == 2, f"two model calls ({len(upstream.chat_requests)})")
        check(not image_parts(upstream.chat_requests[0]), "the first call has no picture part")
        parts = image_parts(upstream.chat_requests[1])
        want = "data:image/png;base64," + base64.b64encode(photo).decode()
        check(len(parts) == 1 and parts[0]["image_url"]["url"] == want,
              f"the second call carries the user's photo as an image_url part: {json.dumps(parts)[:200]}")
        texts = [e["params"]["text"] for e in calls if e["route"] == "sendMessage"]
        check(texts == ["Let me look.", "A small blue square."] or texts == ["Let me look.\n\nA small blue square."],
              f"the answer: {texts}")

        # 5. Albums: one turn each, the caption and one line per item.
        def album(chat_extra, caption, group):
            upstream.script("Three pictures.")
            seq, before = fake.last_seq(), len(upstream.chat_requests)
            items = [fake.admin("/_fake/messages", {"text": caption if i == 0 else "", "media_group_id": group,
                                                    "file": {"kind": "photo", "data_base64": base64.b64encode(
                                                        png_bytes(side=2 + i, rgb=b"\x10\x20\x30")).decode()},
                                                    **chat_extra}) for i in range(3)]
            wait_for(f"the album {group}'s turn", lambda: turn_logged(server, items[0]["update_id"]), server)
            check(len(upstream.chat_requests) == before + 1, f"one model call for album {group}")
            told = user_texts(upstream.chat_requests[-1])[-1].split("\n")
            ids = [it["message"]["message_id"] for it in items]
            check(told[0].endswith(caption) and told[1] == "" and len(told) == 5 and
                  all(f"-{ids[i]}-photo.jpg" in told[2 + i] or f"/{ids[i]}-" in told[2 + i] for i in range(3)) and
                  all(t.startswith("[the user sent a photo: ") for t in told[2:]),
                  f"album {group}: its caption and a line per photo: {told}")
            check(not any(turn_logged(server, it["update_id"]) for it in items[1:]),
                  f"album {group}: no item answered on its own")
            texts = [e["params"]["text"] for e in fake.entries(seq, "api") if e["route"] == "sendMessage"]
            check(texts == ["Three pictures."], f"album {group}: answered once: {texts}")
            return items

        album({}, "what do these have in common?", "g-private")
        album({"chat_id": FORUM, "message_thread_id": TOPIC}, "@sigil_test_bot compare these", "g-forum")

        # 2c. The task set in the topic answers in the topic.
        done = wait_for("the task's answer", lambda: [
            e for e in fake.entries(0, "api")
            if e["route"] == "sendMessage" and "TOPIC-TASK-DONE" in e["params"].get("text", "")], server)
        check(len(done) == 1 and str(done[0]["params"]["chat_id"]) == str(FORUM) and
              done[0]["params"].get("message_thread_id") == TOPIC, f"the reminder lands in the topic: {done}")
        run.stop_cleanly()
        db = sqlite3.connect(f"file:{os.path.join(tmp, 'data', 'sigil.db')}?mode=ro", uri=True, timeout=5)
        unfinished = db.execute("SELECT update_key FROM channel_inbound WHERE done_at IS NULL").fetchall()
        db.close()
        check(unfinished == [], f"every update is finished, an album's items included: {unfinished}")
        print("telegram_model_test: all checks passed")


if __name__ == "__main__":
    main()
