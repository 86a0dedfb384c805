#!/usr/bin/env python3
"""The Discord channel with an OpenAI-compatible model: message ids the model can name, and a generated picture.

Usage: discord_model_test.py PATH_TO_SIGIL  (run by ctest as cli.discord_model_test)

`sigil serve` with [channels.discord] pointed at the wire-faithful fake (tests/fakes/discord.mjs, REST and
Gateway) and the model at a recording fake upstream (images_test.Upstream). Every wait is for an event.
1. The model reads "[message <id>]" (the message's snowflake) before each user message, and a reaction by id
   goes on that message: PUT …/messages/<first id>/reactions/👍/@me while the second is answered. An id the
   conversation does not hold is an error the model reads, and no reaction is sent.
2. createAIImage in a reply: the generated PNG arrives as the attachment of a message, the same bytes.
3. Files the user attaches are downloaded from the CDN (the fake's attachment URLs) into the file root, and the
   model reads where each lies; one over max_download_mb is not downloaded and the model reads why.
"""
import base64
import hashlib
import os
import sys

from channel_fake import ChannelRun, Checks, FakeServer
from channel_fake import DISCORD_FAKE as FAKE, DISCORD_TOKEN as TOKEN
from sigil_serve import file_folder, serve_toml, write_toml
from images_test import PNG, Upstream
from telegram_model_test import user_texts

ALICE, DM = "1200000000000000300", "1200000000000000400"
CHECKS = Checks("discord_model_test")
fail, check = CHECKS.fail, CHECKS.check


def main():
    sigil = os.path.abspath(sys.argv[1])
    upstream = Upstream()
    with ChannelRun(CHECKS, "Discord", "sigil-discord-model-",
                    lambda state_dir: FakeServer(CHECKS, FAKE, state_dir, ["--heartbeat-ms", "1000"])) as run:
        tmp, fake = run.tmp, run.fake
        run.at_exit.append(upstream.server.shutdown)
        files = file_folder(tmp)
        config = write_toml(tmp, serve_toml(tmp) +
                                 upstream.model_toml() +
                                 f'[actions]\nfile_roots = ["{files}"]\n'
                                 f'[channels.discord]\ntoken = "{TOKEN}"\napi_url = "{fake.url}/api/v10"\n'
                                 f'allowed_users = ["{ALICE}"]\nmax_download_mb = 1\n')
        server = run.start(sigil, config, "serve.log")
        CHECKS.wait_for("READY", lambda: any(e.get("t") == "READY" for e in fake.entries(0, "gateway")), server)

        def say(content, replies, attachments=()):
            upstream.script(*replies)
            seq = fake.last_seq()
            msg = fake.admin("/_fake/messages", {"content": content, "channel_id": DM, "author_id": ALICE,
                                                 "attachments": list(attachments)})["message"]
            CHECKS.wait_for(f"the turn of {content!r}", lambda: any(
                f"discord-turn turn=dc-{msg['id']} " in line for line in server.err), server)
            return msg, [e for e in fake.entries(seq, "rest") if f"/channels/{DM}/" in e["route"]]

        # 1. Message ids.
        first, _ = say("first message", ["Noted."])
        told = user_texts(upstream.chat_requests[-1])
        check(told[-1] == f"[message {first['id']}] first message", f"the model reads the snowflake: {told}")
        second, calls = say("second message", [f'<react emoji="👍" message="{first["id"]}"/>Reacted.'])
        reactions = [e for e in calls if "/reactions/" in e["route"]]
        check([e["route"] for e in reactions] ==
              [f"PUT /channels/{DM}/messages/{first['id']}/reactions/%F0%9F%91%8D/@me"] and
              reactions[0]["status"] == 204, f"the reaction goes on the first message, not {second['id']}: "
              f"{[(e['route'], e['status']) for e in reactions]}")
        _, calls = say("third message", ['<react emoji="👍" message="1200000000000009999"/>', "No such message."])
        check(not any("/reactions/" in e["route"] for e in calls), "an unknown id sends no reaction")
        results = user_texts(upstream.chat_requests[-1])[-1]
        check('react: error: no message "1200000000000009999" in this conversation' in results,
              f"the model reads why: {results!r}")

        # 2. createAIImage: an attachment with the PNG's bytes.
        _, calls = say("draw a fox", ['Here it is: <createAIImage>{"prompt":"a red fox"}</createAIImage> Enjoy.'])
        check(len(upstream.image_requests) == 1, f"one images request: {upstream.image_requests}")
        uploads = [e for e in calls if e.get("files")]
        check(len(uploads) == 1 and uploads[0]["status"] == 200 and
              uploads[0]["files"][0]["sha256"] == hashlib.sha256(PNG).hexdigest(),
              f"one message carries the generated PNG: {[(e['route'], e.get('files')) for e in uploads]}")
        # 3. Files the user attaches.
        big = os.urandom(1_100_000)
        msg, _ = say("what are these?", ["Got them."], [
            {"filename": "cat.png", "data_base64": base64.b64encode(PNG).decode()},
            {"filename": "notes v2.txt", "data_base64": base64.b64encode(b"buy milk\n").decode()},
            {"filename": "big.bin", "data_base64": base64.b64encode(big).decode()}])
        told = user_texts(upstream.chat_requests[-1])[-1].split("\n")
        cat, notes = f"discord/{DM}/{msg['id']}-1-cat.png", f"discord/{DM}/{msg['id']}-2-notes_v2.txt"
        check(told[0] == f"[message {msg['id']}] what are these?" and told[1] == "" and
              told[2] == f"[the user sent an image: {cat} (image/png, {len(PNG)} B)]" and
              told[3] == f"[the user sent a file: {notes} (text/plain, 9 B)]" and
              told[4] == "[the user sent a file big.bin (1.1 MB): not downloaded: larger than the 1.0 MB limit]",
              f"the model reads where each file lies, and why the big one is not there: {told}")
        for rel, data in ((cat, PNG), (notes, b"buy milk\n")):
            full = os.path.join(files, rel)
            check(os.path.isfile(full) and open(full, "rb").read() == data, f"{rel} holds the bytes the user sent")
        check(not any("big.bin" in name for name in os.listdir(os.path.join(files, "discord", DM))),
              "the big file is not kept")
        check(any(f"discord-file-kept chat={DM} path={cat}" in line for line in server.err), "the kept file is logged")
        # Only the text with no file starts nothing; a file alone is a message to answer.
        alone, _ = say("", ["A picture."], [{"filename": "dog.png", "data_base64": base64.b64encode(PNG).decode()}])
        told = user_texts(upstream.chat_requests[-1])[-1]
        check(told == f"[message {alone['id']}] [the user sent an image: discord/{DM}/{alone['id']}-dog.png "
              f"(image/png, {len(PNG)} B)]", f"a file without text starts a turn: {told!r}")

        run.stop_cleanly()
        print("discord_model_test: all checks passed")


if __name__ == "__main__":
    main()
