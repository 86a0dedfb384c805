#!/usr/bin/env python3
"""The Telegram channel streaming replies by edits, and files users send, against the fake.

Usage: telegram_stream_test.py PATH_TO_SIGIL  (run by ctest as cli.telegram_stream_test)

`sigil serve` with [channels.telegram] stream = true (edit_interval_ms 1000) and a replay model that writes
slowly. The fake's journal and its view of the chat (what the user sees after edits and deletes) must show:
1. typing first; then one sendMessage and editMessageText calls at least ~1 s apart, never raw markup in any
   of them; the message the user sees in the end is exactly the final reply rendered to HTML (the bold part
   a bold entity), sent once; an edit Telegram answers "message is not modified" is no failure;
2. a reply longer than 4096 units: two messages, each within the limit, together the whole text;
3. a reply that turns silent late (<no-reply/> after text was shown): the shown message is deleted
   (deleteMessage, made again when its answer was lost) and the user sees nothing of it;
4. a photo and a document the user sends are downloaded (getFile + the file URL) into the file root as
   telegram/<chat>/<message id>-<name>, byte for byte, and the model's message names them; a file over
   max_download_mb is not downloaded and the model is told why.
"""
import base64
import hashlib
import os
import sys

from channel_fake import ChannelRun, Checks, FakeServer, png_bytes, write_replay
from channel_fake import TELEGRAM_FAKE as FAKE, TELEGRAM_TOKEN as TOKEN
from sigil_serve import file_folder, replay_model_toml, serve_toml, write_toml

ALICE = 1001
CHECKS = Checks("telegram_stream_test")
fail, check, wait_for = CHECKS.fail, CHECKS.check, CHECKS.wait_for

STREAM_REPLY = ("Here is a **streamed answer** MARK-STREAM that grows while the model writes it: " +
                " ".join(f"piece{i}" for i in range(180)) + " and that is the end.")
STREAM_FINAL_TEXT = STREAM_REPLY.replace("**", "")
LONG_WORD = "abcdefghij" * 5
LONG_REPLY = "MARK-LONG " + " ".join([LONG_WORD] * 100) + " END-LONG"
SILENT_REPLY = "I was going to say something MARK-SILENT " + " ".join(f"w{i}" for i in range(120)) + " <no-reply/>"


def turn_logged(server, update_id):
    return any(f"telegram-turn turn=tg-{update_id} " in line for line in server.err)


def main():
    sigil = os.path.abspath(sys.argv[1])
    with ChannelRun(CHECKS, "Telegram", "sigil-tg-stream-",
                    lambda state_dir: FakeServer(CHECKS, FAKE, state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        files = file_folder(tmp)
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "stream", "reply": STREAM_REPLY}, {"match": "long", "reply": LONG_REPLY},
                              {"match": "quiet", "reply": SILENT_REPLY},
                              {"match": "telegram/", "reply": "Got your file MARK-FILE."},
                              {"match": "not downloaded", "reply": "Too big MARK-BIG."},
                              {"reply": "Fallback."}))
        config = write_toml(tmp, serve_toml(tmp) +
                                 replay_model_toml(replay, 200) +
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[channels.telegram]\ntoken = "{TOKEN}"\napi_url = "{fake.url}"\n'
                                 f'allowed_users = [{ALICE}]\npoll_timeout = 5\nstream = true\n'
                                 f'edit_interval_ms = 1000\nmax_download_mb = 1\n')
        server = run.start(sigil, config, "serve.log")

        def calls(since):
            return [e for e in fake.entries(since, "api") if str(e.get("params", {}).get("chat_id")) == str(ALICE)]

        def bot_messages():
            chat = fake.admin(f"/_fake/chats/{ALICE}")["chat"]
            return chat, [m for m in chat["messages"] if m.get("from", {}).get("is_bot")]

        # 1. A streamed reply.
        seq = fake.last_seq()
        sent = fake.admin("/_fake/messages", {"text": "stream me something"})
        wait_for("the streamed turn", lambda: turn_logged(server, sent["update_id"]), server)
        journal = calls(seq)
        routes = [e["route"] for e in journal]
        print("journal (stream):", routes)
        check(routes[0] == "sendChatAction", "typing first")
        shown = [e for e in journal if e["route"] in ("sendMessage", "editMessageText")]
        check(len([e for e in shown if e["route"] == "sendMessage"]) == 1, "one sendMessage")
        edits = [e for e in shown if e["route"] == "editMessageText"]
        check(len(edits) >= 2, f"the message is edited as the reply grows ({len(edits)} edits)")
        check(all(e["status"] == 200 for e in shown), "Telegram took every send and edit")
        gaps = [b["t_ms"] - a["t_ms"] for a, b in zip(shown, shown[1:])]
        check(min(gaps) >= 900, f"at most about one edit a second: gaps {gaps}")
        check(all("**" not in e["params"]["text"] and "<no-reply" not in e["params"]["text"] for e in shown),
              "never raw markup in a draft")
        check(len({e["params"]["text"] for e in shown}) == len(shown), "no edit repeats the text before it")
        last = shown[-1]["params"]
        check(last.get("parse_mode") == "HTML" and "<b>streamed answer</b>" in last["text"],
              "the last edit is the rendered HTML")
        _, mine = bot_messages()
        final = [m for m in mine if "MARK-STREAM" in m.get("text", "")]
        check(len(final) == 1 and final[0]["text"] == STREAM_FINAL_TEXT and
              any(en["type"] == "bold" for en in final[0].get("entities", [])),
              f"the user sees the whole reply once, bold included: {[m.get('entities') for m in final]}")
        check(final[0]["edits"] == len(edits), "every edit reached that one message")

        # 1b. Telegram answers an edit with "message is not modified" (400): success, not a failure; the
        # message still ends with the whole reply.
        fake.admin("/_fake/faults", {"match": "editMessageText", "kind": "status", "status": 400, "times": 1,
                                     "body": {"ok": False, "error_code": 400, "description":
                                              "Bad Request: message is not modified: specified new message "
                                              "content and reply markup are exactly the same as a current "
                                              "content and reply markup of the message"}})
        seq = fake.last_seq()
        sent = fake.admin("/_fake/messages", {"text": "stream it again"})
        wait_for("the second streamed turn", lambda: turn_logged(server, sent["update_id"]), server)
        edits = [e for e in calls(seq) if e["route"] == "editMessageText"]
        check(edits and edits[0]["status"] == 400 and all(e["status"] == 200 for e in edits[1:]),
              f"the first edit was refused as not modified: {[e['status'] for e in edits]}")
        line = next(l for l in server.err if f"telegram-turn turn=tg-{sent['update_id']} " in l)
        check("note=" not in line, f"the turn reports nothing failed: {line.strip()}")
        _, mine = bot_messages()
        check(sum(m.get("text") == STREAM_FINAL_TEXT for m in mine) == 2, "the user sees the whole reply")

        # 2. Longer than 4096 units: two messages, within the limit, the whole text between them.
        seq = fake.last_seq()
        sent = fake.admin("/_fake/messages", {"text": "a long one"})
        wait_for("the long turn", lambda: turn_logged(server, sent["update_id"]), server)
        _, mine = bot_messages()
        parts = [m["text"] for m in mine if "MARK-LONG" in m.get("text", "") or LONG_WORD in m.get("text", "")
                 and "MARK-STREAM" not in m.get("text", "")]
        check(len(parts) == 2 and all(len(p.encode("utf-16-le")) // 2 <= 4096 for p in parts),
              f"two messages within 4096 units ({[len(p) for p in parts]})")
        check(" ".join(parts).split() == LONG_REPLY.split(), "together they are the whole reply")
        check(len([e for e in calls(seq) if e["route"] == "sendMessage"]) == 2, "two sendMessage calls")

        # 3. A late <no-reply/>: what was shown is deleted. The first deleteMessage takes effect but its answer
        # is lost (outcome unknown): it is made again, and "message to delete not found" means done.
        fake.admin("/_fake/faults", {"match": "deleteMessage", "kind": "drop_after_send", "times": 1})
        seq = fake.last_seq()
        sent = fake.admin("/_fake/messages", {"text": "be quiet"})
        wait_for("the silent turn", lambda: turn_logged(server, sent["update_id"]), server)
        journal = calls(seq)
        print("journal (silent):", [(e["route"], e["status"]) for e in journal])
        shown_ids = {e["response"]["result"]["message_id"] for e in journal if e["route"] == "sendMessage"}
        deletes = [e for e in journal if e["route"] == "deleteMessage"]
        check(len(shown_ids) == 1, "the reply had been shown while it streamed")
        check([e["params"]["message_id"] for e in deletes] == list(shown_ids) * 2 and deletes[1]["status"] == 400,
              "deleteMessage removes it; made again after the lost answer, it is not found (gone)")
        line = next(l for l in server.err if f"telegram-turn turn=tg-{sent['update_id']} " in l)
        check("in_doubt=" not in line and "failed" not in line and "1 of 1 messages deleted" in line,
              f"the turn reports the reply deleted, nothing in doubt: {line.strip()}")
        chat, mine = bot_messages()
        check(not any("MARK-SILENT" in m.get("text", "") for m in mine) and
              list(shown_ids)[0] in chat["deleted"], "the user sees nothing of the silenced reply")

        # 4. Files the user sends.
        png = png_bytes(3, b"\x00\xff\x00")
        csv = b"name,count\nsigil,1\n"
        seq = fake.last_seq()
        photo = fake.admin("/_fake/messages", {"text": "what is this", "file": {
            "kind": "photo", "name": "x.png", "data_base64": base64.b64encode(png).decode()}})
        wait_for("the photo turn", lambda: turn_logged(server, photo["update_id"]), server)
        doc = fake.admin("/_fake/messages", {"text": "", "file": {
            "kind": "document", "name": "my table.csv", "data_base64": base64.b64encode(csv).decode()}})
        wait_for("the document turn", lambda: turn_logged(server, doc["update_id"]), server)
        big = fake.admin("/_fake/messages", {"text": "and this", "file": {
            "kind": "document", "name": "big.bin", "data_base64": base64.b64encode(os.urandom(1_200_000)).decode()}})
        wait_for("the big file's turn", lambda: turn_logged(server, big["update_id"]), server)
        photo_path = f"telegram/{ALICE}/{photo['message']['message_id']}-photo.png"
        doc_path = f"telegram/{ALICE}/{doc['message']['message_id']}-my_table.csv"
        for rel, data in ((photo_path, png), (doc_path, csv)):
            full = os.path.join(files, rel)
            check(os.path.isfile(full) and hashlib.sha256(open(full, "rb").read()).digest() ==
                  hashlib.sha256(data).digest(), f"{rel} holds the bytes the user sent")
        routes = [e["route"] for e in fake.entries(seq, "api") if e["route"] == "getFile"]
        downloads = fake.entries(seq, "download")
        check(len(routes) == 2 and len(downloads) == 2, "getFile and one download per kept file, none for the big one")
        _, mine = bot_messages()
        texts = [m.get("text") for m in mine if "MARK-FILE" in m.get("text", "") or "MARK-BIG" in m.get("text", "")]
        check(texts.count("Got your file MARK-FILE.") == 2 and texts.count("Too big MARK-BIG.") == 1,
              f"the model read where the files are, and why the big one is not there: {texts}")
        check(any(f"telegram-file-kept chat={ALICE} path={photo_path}" in line for line in server.err),
              "the kept file is logged")
        check(not os.path.exists(os.path.join(files, f"telegram/{ALICE}/{big['message']['message_id']}-big.bin")),
              "the big file is not kept")

        run.stop_cleanly("sigil serve stops cleanly")
        print("telegram_stream_test: all checks passed")


if __name__ == "__main__":
    main()
