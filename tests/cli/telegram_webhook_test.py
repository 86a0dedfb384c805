#!/usr/bin/env python3
"""The Telegram channel in webhook mode, end to end against the fake (tests/fakes/telegram.mjs).

Usage: telegram_webhook_test.py PATH_TO_SIGIL  (run by ctest as cli.telegram_webhook_test)

`sigil serve` with [channels.telegram] mode = "webhook", its webhook_url on the gateway's own port. The fake
delivers updates to it as Telegram does (and, through its admin API, POSTs them by hand); its journal shows
every Bot API call and every delivery with its status:
1. at start setWebhook (url, secret_token, allowed_updates ["message"], drop_pending_updates false); /healthz
   says the channel is in webhook mode;
2. a message delivered by the fake is answered 200 and answered once in the chat;
3. POSTs without the secret header (401) or with a wrong one (403) are logged and start nothing;
4. the same update delivered again is answered 200 and starts no second turn;
5. sigil killed with SIGKILL right after it answered 200 to an update, then restarted: the update's turn runs
   (resumed), once; a redelivery then is a duplicate; killed again once a turn had stored the user's message:
   the resumed turn answers once, the history holds that message once, and "typing" was renewed every ~4 s
   while its reply was written;
6. back to polling: deleteWebhook, then getUpdates, and a message is answered; /healthz says polling.
Nothing is lost, nothing is sent twice: every user message gets exactly one answer.
"""
import json
import os
import signal
import socket
import sys
import urllib.request

from channel_fake import ChannelRun, Checks, FakeServer, write_replay
from channel_fake import TELEGRAM_FAKE as FAKE, TELEGRAM_TOKEN as TOKEN
from sigil_serve import replay_model_toml, serve_toml, write_toml

SECRET = "webhook-Secret_0123456789"
ALICE = 1001
CHECKS = Checks("telegram_webhook_test")
fail, check = CHECKS.fail, CHECKS.check

# About 9 s at 20 tokens a second: long enough for the typing indicator to be renewed (every 4 s).
SLOW_REPLY = "Slow answer MARK-SLOW " + " ".join(f"word{i}" for i in range(180)) + " end."


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, predicate, server=None):
    return CHECKS.wait_for(what, predicate, server)


def turn_logged(server, update_id):
    return any(f"telegram-turn turn=tg-{update_id} " in line for line in server.err)


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, json.loads(r.read())


def main():
    sigil = os.path.abspath(sys.argv[1])
    with ChannelRun(CHECKS, "Telegram", "sigil-tg-webhook-",
                    lambda state_dir: FakeServer(CHECKS, FAKE, state_dir, ["--webhook-retry-ms", "200"])) as run:
        tmp, fake = run.tmp, run.fake
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, ({"match": "slow", "reply": SLOW_REPLY},
                              {"match": "hello", "reply": "Hello back MARK-HELLO."},
                              {"match": "forged", "reply": "MARK-FORGED must never be sent."},
                              {"match": "polling", "reply": "Polling again MARK-POLL."},
                              {"reply": "Fallback."}))
        port = free_port()
        hook = f"http://127.0.0.1:{port}/telegram/hook"
        config = os.path.join(tmp, "sigil.toml")

        def write_config(mode):
            write_toml(tmp, serve_toml(tmp, f"127.0.0.1:{port}") +
                            replay_model_toml(replay, 20) +
                            f'[channels.telegram]\ntoken = "{TOKEN}"\napi_url = "{fake.url}"\n'
                            f'allowed_users = [{ALICE}]\npoll_timeout = 5\nstream = false\nmode = "{mode}"\n'
                            f'webhook_url = "{hook}"\nwebhook_secret = "{SECRET}"\n')

        def start(name):
            return run.start(sigil, config, name)

        def api(route, since=0):
            return [e for e in fake.entries(since, "api") if e["route"] == route]

        def answers(mark, since=0):
            return [e for e in api("sendMessage", since) if mark in e["params"].get("text", "")]

        # 1. setWebhook at start.
        write_config("webhook")
        server = start("serve1.log")
        check(any(f"sigil: telegram: webhook {hook} via {fake.url}" in line for line in server.out),
              "serve says it receives by webhook")
        sets = wait_for("setWebhook", lambda: [e for e in api("setWebhook") if e["status"] == 200], server)
        params = sets[0]["params"]
        check(params.get("url") == hook and params.get("secret_token") == SECRET and
              params.get("allowed_updates") == ["message"] and params.get("drop_pending_updates") is False,
              f"setWebhook(url, secret_token, allowed_updates, drop_pending_updates false): {params}")
        check(all(TOKEN not in line and SECRET not in line for line in server.err + server.out),
              "neither the token nor the secret appears in the output")
        health = wait_for("/healthz in webhook state", lambda: (
            lambda h: h if h["channels"]["telegram"]["state"] == "webhook" else None)(
                get_json(server.url + "/healthz")[1]), server)
        check(health["status"] == "ok" and health["channels"]["telegram"]["mode"] == "webhook",
              f"/healthz shows the channel: {health}")

        # 2. A message delivered by the fake: 200, one answer.
        seq = fake.last_seq()
        sent = fake.admin("/_fake/messages", {"text": "hello there"})
        first_id = sent["update_id"]
        wait_for("the webhook turn", lambda: turn_logged(server, first_id), server)
        deliveries = [e for e in fake.entries(seq, "webhook") if e["update_id"] == first_id]
        check([e["status"] for e in deliveries] == [200], f"delivered once, answered 200: {deliveries}")
        check(len(answers("MARK-HELLO", seq)) == 1, "answered once")

        # 3. Missing and wrong secrets: refused, logged, nothing processed.
        forged = {"message": {"message_id": 900, "date": 1, "chat": {"id": ALICE, "type": "private"},
                              "from": {"id": ALICE, "is_bot": False, "first_name": "Alice"},
                              "text": "forged message"}}
        seq = fake.last_seq()
        missing = fake.admin("/_fake/webhook/post", {"update": forged, "secret": "missing"})
        wrong = fake.admin("/_fake/webhook/post", {"update": forged, "secret": "wrong"})
        check(missing["status"] == 401 and wrong["status"] == 403,
              f"no secret header: 401, a wrong one: 403 ({missing['status']}, {wrong['status']})")
        # The log is read from sigil's stderr as it comes: waited for, not assumed to be there already.
        wait_for("both refusals logged", lambda: sum("telegram-webhook-refused" in line for line in server.err) >= 2,
                 server)
        check(not any(f"update={missing['update_id']}" in line or f"update={wrong['update_id']}" in line
                      for line in server.err), "the refused updates are neither recorded nor ignored: unseen")

        # 4. The first update delivered again (Telegram retrying): 200, a duplicate, no second turn.
        again = fake.admin("/_fake/webhook/post", {"update_id": first_id})
        check(again["status"] == 200, "a redelivered update is answered 200 (so Telegram stops)")
        wait_for("the duplicate", lambda: any(f"telegram-duplicate update={first_id}" in line
                                              for line in server.err), server)
        check(len(answers("MARK-HELLO")) == 1, "a redelivery sends nothing more")

        # 5. SIGKILL right after the 200 for a slow message's update; then a restart.
        seq = fake.last_seq()
        sent = fake.admin("/_fake/messages", {"text": "a slow one please"})
        slow_id = sent["update_id"]
        wait_for("the 200 for the slow update", lambda: any(
            e["update_id"] == slow_id and e["status"] == 200 for e in fake.entries(seq, "webhook")), server)
        server.stop(signal.SIGKILL)
        check(answers("MARK-SLOW") == [], "killed before the slow answer was sent")
        server = start("serve2.log")
        wait_for("the slow turn after the restart", lambda: turn_logged(server, slow_id), server)
        check(any(f"telegram-resume update={slow_id}" in line for line in server.err),
              "the update answered 200 before the kill is resumed at start")
        again = fake.admin("/_fake/webhook/post", {"update_id": slow_id})
        check(again["status"] == 200, "its redelivery is answered 200")
        wait_for("the slow duplicate", lambda: any(f"telegram-duplicate update={slow_id}" in line
                                                   for line in server.err), server)
        check(len(answers("MARK-SLOW")) == 1, "the slow message is answered exactly once")
        check(sum("telegram-turn turn=" in line for line in server.err if f"tg-{slow_id} " in line) == 1,
              "one finished turn for it")

        # 5b. Killed once the turn had stored the user's message (and before it answered): the resumed turn
        # does not store that message a second time.
        def user_messages(text):
            _, history = get_json(f"{server.url}/v1/conversations/tg-{ALICE}/messages?user=tg-{ALICE}&limit=200")
            return [m for m in history["messages"] if m["role"] == "user" and m["text"] == text]

        sent = fake.admin("/_fake/messages", {"text": "another slow one"})
        again_id = sent["update_id"]
        wait_for("the user's message in the history", lambda: user_messages("another slow one"), server)
        server.stop(signal.SIGKILL)
        check(len(answers("MARK-SLOW")) == 1, "killed before the second slow answer was sent")
        seq_restart = fake.last_seq()
        server = start("serve2b.log")
        wait_for("the second slow turn after the restart", lambda: turn_logged(server, again_id), server)
        check(len(answers("MARK-SLOW")) == 2, "the second slow message is answered exactly once")
        stored = user_messages("another slow one")
        check(len(stored) == 1, f"the resumed turn's user message is stored once ({len(stored)})")
        check(len(user_messages("a slow one please")) == 1, "so is the first one's")
        # While the model writes (stream = false: nothing is shown until the reply is final), "typing" is
        # renewed about every 4 s.
        renewed = [e["t_ms"] for e in fake.entries(seq_restart, "api")
                   if e["route"] == "sendChatAction" and e["params"].get("action") == "typing"]
        gaps = [b - a for a, b in zip(renewed, renewed[1:])]
        check(len(renewed) >= 2 and all(3500 <= g <= 5500 for g in gaps),
              f"typing is renewed every ~4 s while the reply is written: gaps {gaps}")
        check(answers("MARK-FORGED") == [], "the forged updates were never answered")

        # 6. Back to polling: deleteWebhook, then getUpdates; a message is answered; /healthz says polling.
        run.stop_cleanly("sigil serve stops cleanly")
        write_config("polling")
        seq = fake.last_seq()
        server = start("serve3.log")
        wait_for("getUpdates", lambda: api("getUpdates", seq), server)
        routes = [e["route"] for e in fake.entries(seq, "api") if e["route"] in ("deleteWebhook", "getUpdates")]
        check(routes[0] == "deleteWebhook" and
              next(e for e in api("deleteWebhook", seq))["params"].get("drop_pending_updates") is False,
              f"deleteWebhook (pending updates kept) before polling: {routes[:3]}")
        state = fake.admin("/_fake/state")
        check(state["webhook"]["url"] == "", "the fake has no webhook any more")
        sent = fake.admin("/_fake/messages", {"text": "polling works?"})
        wait_for("the polled turn", lambda: turn_logged(server, sent["update_id"]), server)
        check(len(answers("MARK-POLL")) == 1, "answered once by polling")
        health = wait_for("/healthz in polling state", lambda: (
            lambda h: h if h["channels"]["telegram"]["state"] == "polling" else None)(
                get_json(server.url + "/healthz")[1]), server)
        check(health["channels"]["telegram"]["mode"] == "polling" and
              health["channels"]["telegram"]["running_turns"] == 0 and
              health["channels"]["telegram"]["pending_updates"] == 0,
              f"/healthz: polling, nothing pending: {health}")
        lost = [e["update_id"] for e in fake.entries(0, "update") if e.get("update_id") and
                not any(f"tg-{e['update_id']} " in line for s in ("serve1.log", "serve2.log", "serve2b.log", "serve3.log")
                        for line in open(os.path.join(tmp, s)) if "telegram-turn turn=" in line)]
        check(lost == [], f"every update the fake created had its turn: lost {lost}")
        run.stop_cleanly("sigil serve stops cleanly again")
        print("telegram_webhook_test: all checks passed")


if __name__ == "__main__":
    main()
