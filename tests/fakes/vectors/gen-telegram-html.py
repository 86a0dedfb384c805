#!/usr/bin/env python3
"""Regenerates telegram-html.jsonl: what Telegram's own parser (TDLib's parseTextEntities, parse_mode HTML)
makes of each input in telegram-html-inputs.json, in Bot API terms (text, entities with UTF-16 offsets, or
the "can't parse entities" reason). tests/fakes/telegram.test.mjs checks the fake's parser against it.

Needs libtdjson.so, which the npm package prebuilt-tdlib ships; scripts/npm-deps installs its linux build
(@prebuilt-tdlib/linux-x64-glibc, pinned in tests/e2e/package-lock.json), which cli.telegram_entities_test uses
too (tests/cli/tdlib_entities.py):
  python3 gen-telegram-html.py tests/e2e/node_modules/@prebuilt-tdlib/linux-x64-glibc/libtdjson.so
"""
import ctypes
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
td = ctypes.CDLL(sys.argv[1])
td.td_execute.restype = ctypes.c_char_p
td.td_execute.argtypes = [ctypes.c_char_p]


def execute(query):
    return json.loads(td.td_execute(json.dumps(query).encode()))


execute({"@type": "setLogVerbosityLevel", "new_verbosity_level": 0})

SIMPLE = {
    "textEntityTypeBold": "bold", "textEntityTypeItalic": "italic", "textEntityTypeUnderline": "underline",
    "textEntityTypeStrikethrough": "strikethrough", "textEntityTypeSpoiler": "spoiler",
    "textEntityTypeCode": "code", "textEntityTypePre": "pre", "textEntityTypeBlockQuote": "blockquote",
    "textEntityTypeExpandableBlockQuote": "expandable_blockquote",
}


def bot_api_entity(e):
    t = e["type"]
    out = {"offset": e["offset"], "length": e["length"]}
    kind = t["@type"]
    if kind in SIMPLE:
        out["type"] = SIMPLE[kind]
    elif kind == "textEntityTypePreCode":
        out.update(type="pre", language=t["language"])
    elif kind == "textEntityTypeTextUrl":
        out.update(type="text_link", url=t["url"])
    elif kind == "textEntityTypeMentionName":
        out.update(type="text_mention", user_id=t["user_id"])
    elif kind == "textEntityTypeCustomEmoji":
        out.update(type="custom_emoji", custom_emoji_id=t["custom_emoji_id"])
    elif kind == "textEntityTypeDateTime":
        out.update(type="date_time", unix_time=t["unix_time"])
    else:
        raise SystemExit(f"unmapped entity type {kind}")
    return out


with open(os.path.join(here, "telegram-html-inputs.json"), encoding="utf-8") as f:
    inputs = json.load(f)
with open(os.path.join(here, "telegram-html.jsonl"), "w", encoding="utf-8") as out:
    for text in inputs:
        r = execute({"@type": "parseTextEntities", "text": text, "parse_mode": {"@type": "textParseModeHTML"}})
        if r["@type"] == "error":
            prefix = "Can't parse entities: "
            assert r["message"].startswith(prefix), r
            row = {"in": text, "error": r["message"][len(prefix):]}
        else:
            row = {"in": text, "text": r["text"], "entities": [bot_api_entity(e) for e in r["entities"]]}
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
