#!/usr/bin/env python3
"""The Telegram HTML sigil sends, checked by Telegram's own entity parser (TDLib's parseTextEntities).

Usage: telegram_entities_test.py PATH_TO_SIGIL  (run by ctest as cli.telegram_entities_test)

`sigil serve` with [channels.telegram] pointed at the wire-faithful fake (tests/fakes/telegram.mjs) and a
replay model whose replies are Markdown (tests/cli/telegram_markdown_corpus.py): a hand-written set covering
every construct, the replay demo's replies (examples/demo-replay.jsonl, directives and all), 300 replies
generated from the same pieces and 300 of random Markdown and HTML characters, from a fixed seed. Each reply
goes to a chat of its own (so no rate limit slows it and the fake's journal shows which messages belong to
which reply). Then every sendMessage and editMessageText sigil made is parsed by libtdjson
(npm @prebuilt-tdlib/linux-x64-glibc, via tests/cli/tdlib_entities.py):
1. every one was sent with parse_mode HTML, taken by Telegram (the fake) once, and TDLib parses it without
   "Can't parse entities": sigil never needed its plain-text retry (and never logged telegram-html-refused);
2. the entities obey Telegram's nesting rules (nothing Telegram would drop), the text is not empty and at most
   4096 UTF-16 units (the long replies are split), and the fake reported the same text and entities as TDLib
   (except links to hosts TDLib refuses, which the fake keeps: printed as a note);
3. each reply's intended entities are there (the random ones have none): **x** is bold over "x", a link a
   text_link with its URL, a fence a pre with its language, raw HTML and e-mail addresses shown as they are.
A missing libtdjson fails the test (run scripts/npm-deps); it never skips.
"""
import os
import sys
import time

from channel_fake import ChannelRun, Checks, FakeServer, write_replay
from channel_fake import TELEGRAM_FAKE as FAKE, TELEGRAM_TOKEN as TOKEN
from sigil_serve import replay_model_toml, serve_toml, write_toml
from tdlib_entities import TdLib, TdLibMissing, nesting_problems, utf16_units
from telegram_markdown_corpus import chaos, demo_replies, fuzzed, hand_written

FIRST_CHAT = 70000  # sample i is written by user FIRST_CHAT + i in their private chat
# Fixed, so a run is reproducible; SIGIL_ENTITIES_SEED=N explores other corpora (and SIGIL_ENTITIES_COUNT=M
# more of them) by hand.
SEED = int(os.environ.get("SIGIL_ENTITIES_SEED", "20261127"))
FUZZED = CHAOS = int(os.environ.get("SIGIL_ENTITIES_COUNT", "300"))
BATCH = 40  # turns started at once
CHECKS = Checks("telegram_entities_test")
fail, check = CHECKS.fail, CHECKS.check


def key(i):
    return f"q{i:04d}x"  # the replay line's match; unique as a substring


def covers(part, entity_type, text, attribute):
    """Whether an entity of entity_type (with that url or language) covers text where it first occurs."""
    at = part.text.find(text)
    if at < 0:
        return False
    start = utf16_units(part.text[:at])
    end = start + utf16_units(text)
    for e in part.entities:
        if e.type != entity_type or e.offset > start or e.offset + e.length < end:
            continue
        if entity_type == "text_link" and attribute is not None and e.url != attribute:
            continue
        if entity_type == "pre" and e.language != attribute:
            continue
        return True
    return False


def literal(part, text):
    at = part.text.find(text)
    if at < 0:
        return False
    start = utf16_units(part.text[:at])
    end = start + utf16_units(text)
    return not any(e.offset < end and start < e.offset + e.length and e.type != "blockquote" for e in part.entities)


def expectation_met(parts, expectation):
    kind, text = expectation[0], expectation[1]
    attribute = expectation[2] if len(expectation) > 2 else None
    for part in parts:
        if kind == "text" and text in part.text:
            return True
        if kind == "literal" and literal(part, text):
            return True
        if kind not in ("text", "literal") and covers(part, kind, text, attribute):
            return True
    return False


def fake_disagrees(shown, part):
    """None when the fake showed what TDLib parsed; "links" when the fake only kept text_links TDLib drops (its
    URL checks are laxer than TDLib's on hosts like "www.a.bc*>", which md4c's permissive autolinks make of
    odd text); else "entities"."""
    tdlib = [x.bot_api() for x in part.entities]
    fake = shown.get("entities", [])
    if shown.get("text") == part.text and fake == tdlib:
        return None
    if shown.get("text") == part.text and [x for x in fake if x["type"] != "text_link" or x in tdlib] == tdlib:
        return "links"
    return "entities"


def describe(part):
    return f"text={part.text!r} entities={[e.bot_api() for e in part.entities]}"


def main():
    sigil = os.path.abspath(sys.argv[1])
    try:
        td = TdLib.load()
    except TdLibMissing as e:
        fail(f"TDLib is needed: {e}")
    check(td.parse_html("<b>x</i>").error is not None and
          td.parse_html("<b>x</i>").error.startswith("Can't parse entities: Unmatched end tag"),
          f"TDLib ({td.path}) refuses bad HTML as Telegram does")
    good = td.parse_html('<b>x</b> &amp; <a href="https://example.com/?a=1&amp;b=2">l</a>')
    check(good.error is None and good.text == "x & l" and
          [e.bot_api() for e in good.entities] == [{"offset": 0, "length": 1, "type": "bold"},
                                                   {"offset": 4, "length": 1, "type": "text_link",
                                                    "url": "https://example.com/?a=1&b=2"}],
          f"TDLib parses good HTML into entities: {describe(good)}")

    samples = hand_written() + demo_replies() + fuzzed(SEED, FUZZED) + chaos(SEED, CHAOS)
    with ChannelRun(CHECKS, "Telegram", "sigil-tg-entities-",
                    lambda state_dir: FakeServer(CHECKS, FAKE, state_dir)) as run:
        tmp, fake = run.tmp, run.fake
        replay = os.path.join(tmp, "replay.jsonl")
        write_replay(replay, [{"match": key(i), "reply": md} for i, (_, md, _) in enumerate(samples)] +
                     [{"reply": "No such sample."}])
        config = write_toml(tmp, serve_toml(tmp) +
                                 replay_model_toml(replay, 0) +
                                 f'[channels.telegram]\ntoken = "{TOKEN}"\napi_url = "{fake.url}"\n'
                                 f'allowed_users = []\npoll_timeout = 5\n')
        server = run.start(sigil, config, "serve.log")

        for first in range(0, len(samples), BATCH):
            started = time.monotonic()
            updates = []
            for i in range(first, min(first + BATCH, len(samples))):
                user = {"id": FIRST_CHAT + i, "first_name": f"User{i}"}
                sent = fake.admin("/_fake/messages", {"text": f"sample {key(i)}", "from": user, "chat_id": user["id"]})
                updates.append(sent["update_id"])
            CHECKS.wait_for(f"the turns of samples {first}..{first + len(updates) - 1}", lambda: all(
                any(f"telegram-turn turn=tg-{u} " in line for line in server.err) for u in updates), server)
            print(f"samples {first}..{first + len(updates) - 1}: {time.monotonic() - started:.1f} s")
        print(f"{len(samples)} replies delivered")

        calls = {}
        for e in fake.entries(kind="api"):
            chat = e.get("params", {}).get("chat_id")
            if e["route"] in ("sendMessage", "editMessageText") and chat is not None:
                calls.setdefault(int(chat) - FIRST_CHAT, []).append(e)
        problems, fake_notes, parsed_count, expectations = [], [], 0, 0
        problems += [f"sigil fell back to plain text: {line.strip()}" for line in server.err
                     if "telegram-html-refused" in line]
        for i, (name, md, expected) in enumerate(samples):
            sends = calls.get(i, [])
            where = f"sample {i} ({name})"
            if not sends:
                if not name.startswith("demo"):  # a demo reply may be all directives
                    problems.append(f"{where}: nothing was sent")
                continue
            if name.startswith("long") and len(sends) < 2:
                problems.append(f"{where}: one message for {len(md)} characters: never split")
            parts = []
            for e in sends:
                params = e["params"]
                if e["route"] == "editMessageText" and "message is not modified" in str(e.get("response")):
                    continue  # a streamed edit that changed nothing Telegram shows: the channel counts it done
                if params.get("parse_mode") != "HTML" or e["status"] != 200:
                    problems.append(f"{where}: {e['route']} status {e['status']} parse_mode "
                                    f"{params.get('parse_mode')!r} (a plain-text retry or a refusal): "
                                    f"{params.get('text')!r} -> {e.get('response')}")
                    continue
                part = td.parse_html(params["text"])
                parsed_count += 1
                if part.error:
                    problems.append(f"{where}: TDLib: {part.error}\nhtml: {params['text']!r}\nmarkdown: {md!r}")
                    continue
                parts.append(part)
                for p in nesting_problems(part.entities):
                    problems.append(f"{where}: Telegram would drop an entity: {p}\nhtml: {params['text']!r}")
                if not part.text.strip() or utf16_units(part.text) > 4096:
                    problems.append(f"{where}: a message of {utf16_units(part.text)} UTF-16 units")
                # The fake's own parser (tests/fakes/telegram-html.mjs) is checked against TDLib on every message.
                shown = e["response"]["result"]
                disagreement = fake_disagrees(shown, part)
                if disagreement == "links":
                    fake_notes += [x["url"] for x in shown["entities"] if x not in [y.bot_api() for y in part.entities]]
                elif disagreement:
                    problems.append(f"{where}: the fake and TDLib disagree:\nfake:  {shown}\ntdlib: {describe(part)}"
                                    f"\nhtml: {params['text']!r}")
            for x in expected:
                expectations += 1
                if parts and not expectation_met(parts, x):
                    problems.append(f"{where}: not shown as intended: {x}\nmarkdown: {md!r}\n" +
                                    "\n".join(describe(p) for p in parts))
        if fake_notes:
            print(f"note: the fake kept {len(fake_notes)} links TDLib drops (its URL checks are laxer): "
                  f"{fake_notes[:8]}")
        for p in problems:
            print("PROBLEM", p.splitlines()[0])
        for p in problems[:40]:
            print("PROBLEM in full:", p)
        check(parsed_count >= len(samples), f"TDLib parsed {parsed_count} messages of {len(samples)} replies")
        check(not problems, f"every message parses in TDLib with the intended entities ({expectations} "
                            f"expectations; {len(problems)} problems)")
        run.stop_cleanly()
        print("telegram_entities_test: all checks passed")


if __name__ == "__main__":
    main()
