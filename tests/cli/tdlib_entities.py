"""Telegram's own entity parser, for the tests: TDLib's `parseTextEntities` (parse_mode HTML) through
libtdjson's synchronous `td_execute`, loaded with ctypes. The Bot API server is built on TDLib, so what this
refuses is what Telegram refuses ("Can't parse entities: …"), and what it accepts gives the entities Telegram
would show.

libtdjson.so comes from npm (`@prebuilt-tdlib/linux-x64-glibc`, the linux build of `prebuilt-tdlib`, pinned in
tests/e2e/package-lock.json; scripts/npm-deps installs it). SIGIL_TDJSON names another libtdjson (another
platform, a TDLib built by hand). Not a test itself: its name does not end in _test.py.

    td = TdLib.load()          # raises TdLibMissing with the reason
    r = td.parse_html("<b>x</b>")
    r.error                    # None, or "Can't parse entities: …"
    r.text, r.entities         # plain text; [Entity(type, offset, length, url, language, covered)]
"""
import ctypes
import json
import os
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_TDJSON = os.path.join(ROOT, "tests", "e2e", "node_modules", "@prebuilt-tdlib", "linux-x64-glibc",
                              "libtdjson.so")

# TDLib's entity types under their Bot API names (https://core.telegram.org/bots/api#messageentity).
BOT_API_TYPES = {
    "textEntityTypeBold": "bold", "textEntityTypeItalic": "italic", "textEntityTypeUnderline": "underline",
    "textEntityTypeStrikethrough": "strikethrough", "textEntityTypeSpoiler": "spoiler",
    "textEntityTypeCode": "code", "textEntityTypePre": "pre", "textEntityTypePreCode": "pre",
    "textEntityTypeTextUrl": "text_link", "textEntityTypeBlockQuote": "blockquote",
    "textEntityTypeExpandableBlockQuote": "expandable_blockquote", "textEntityTypeMentionName": "text_mention",
    "textEntityTypeCustomEmoji": "custom_emoji", "textEntityTypeDateTime": "date_time",
}


class TdLibMissing(Exception):
    """libtdjson could not be found or loaded; the message says why and what to do."""


def utf16_units(s):
    return len(s.encode("utf-16-le")) // 2


@dataclass
class Entity:
    type: str  # the Bot API name: bold, italic, code, pre, text_link, blockquote, …
    offset: int  # UTF-16 code units, as Telegram counts
    length: int
    url: str = None  # text_link
    language: str = None  # pre with a language
    covered: str = ""  # the text it covers

    def bot_api(self):
        """The Bot API MessageEntity (what sendMessage's answer carries)."""
        out = {"offset": self.offset, "length": self.length, "type": self.type}
        if self.url is not None:
            out["url"] = self.url
        if self.language is not None:
            out["language"] = self.language
        return out


@dataclass
class Parsed:
    text: str = ""
    entities: list = field(default_factory=list)
    error: str = None  # "Can't parse entities: …" when Telegram would refuse the HTML


def utf16_slice(text, offset, length):
    units = text.encode("utf-16-le")
    return units[2 * offset:2 * (offset + length)].decode("utf-16-le", errors="replace")


def entity_of(text, e):
    """One TDLib textEntity as an Entity; an entity type the Bot API does not know is an error."""
    t = e["type"]
    kind = t["@type"]
    if kind not in BOT_API_TYPES:
        raise ValueError(f"unmapped TDLib entity type {kind}")
    return Entity(BOT_API_TYPES[kind], e["offset"], e["length"], url=t.get("url"), language=t.get("language"),
                  covered=utf16_slice(text, e["offset"], e["length"]))


class TdLib:
    def __init__(self, path):
        self.path = path
        self._td = ctypes.CDLL(path)
        self._td.td_execute.restype = ctypes.c_char_p
        self._td.td_execute.argtypes = [ctypes.c_char_p]
        quiet = self.execute({"@type": "setLogVerbosityLevel", "new_verbosity_level": 0})
        if quiet.get("@type") != "ok":
            raise TdLibMissing(f"{path}: setLogVerbosityLevel answered {quiet}")

    @classmethod
    def load(cls):
        path = os.environ.get("SIGIL_TDJSON") or DEFAULT_TDJSON
        if not os.path.isfile(path):
            raise TdLibMissing(f"{path} is missing: run scripts/npm-deps (it installs @prebuilt-tdlib/linux-x64-glibc;"
                               " on another platform set SIGIL_TDJSON to a libtdjson)")
        try:
            return cls(path)
        except OSError as e:
            raise TdLibMissing(f"{path} does not load: {e}") from e

    def execute(self, query):
        """td_execute: the synchronous requests (parseTextEntities, setLogVerbosityLevel, …)."""
        answer = self._td.td_execute(json.dumps(query).encode())
        if answer is None:
            raise RuntimeError(f"td_execute answered nothing to {query['@type']}")
        return json.loads(answer)

    def parse_html(self, html):
        """What Telegram makes of `html` sent with parse_mode HTML."""
        r = self.execute({"@type": "parseTextEntities", "text": html, "parse_mode": {"@type": "textParseModeHTML"}})
        if r["@type"] == "error":
            return Parsed(error=r["message"])
        if r["@type"] != "formattedText":
            raise RuntimeError(f"parseTextEntities answered {r}")
        return Parsed(r["text"], [entity_of(r["text"], e) for e in r["entities"]])


def nesting_problems(entities):
    """What Telegram would drop from these entities (TDLib's fix_entities, which the Bot API applies; rules in
    https://core.telegram.org/bots/api#formatting-options): two entities that overlap must nest; code, pre and
    text_link contain none of each other; code and pre contain no style; blockquotes are not nested. A style
    over exactly a code span (a heading that is all code) is not counted: Telegram cannot show bold code, and
    no renderer could."""
    styles = {"bold", "italic", "underline", "strikethrough", "spoiler"}
    quotes = {"blockquote", "expandable_blockquote"}
    problems = []
    for i, a in enumerate(entities):
        for b in entities[i + 1:]:
            a_end, b_end = a.offset + a.length, b.offset + b.length
            if a_end <= b.offset or b_end <= a.offset:
                continue
            if not (a.offset <= b.offset and b_end <= a_end or b.offset <= a.offset and a_end <= b_end):
                problems.append(f"{a.type} and {b.type} overlap without nesting: {a.covered!r} / {b.covered!r}")
                continue
            same = a.offset == b.offset and a.length == b.length
            outer, inner = (a, b) if a.offset <= b.offset and b_end <= a_end and a.length >= b.length else (b, a)
            if same and {a.type, b.type} & {"code", "pre"} and {a.type, b.type} & styles:
                continue
            if outer.type in quotes and inner.type in quotes:
                problems.append(f"a blockquote in a blockquote: {inner.covered!r}")
            elif outer.type in quotes or inner.type in quotes or outer.type in styles and inner.type in styles:
                continue
            elif outer.type in ("code", "pre") or inner.type not in styles and outer.type not in styles:
                problems.append(f"{inner.type} inside {outer.type}: {inner.covered!r}")
    return problems
