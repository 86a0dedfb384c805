"""Markdown replies with what Telegram must show for them, for cli.telegram_entities_test: a hand-written set
that covers every construct, and a seeded generator that combines the same pieces at random.

A sample is (name, markdown, expectations). An expectation is a tuple:
  (ENTITY_TYPE, text[, attribute]) an entity of that Bot API type (bold, italic, strikethrough, code, pre,
                                   text_link, blockquote) covers `text` where it first occurs in the message
                                   text; `attribute` is text_link's url or pre's language (None: no language)
  ("text", text)                   `text` occurs in the message text (block layout: "• item", "a | b")
  ("literal", text)                `text` occurs and no entity but a blockquote touches it (raw HTML, escapes,
                                   character references, e-mail addresses shown as they are)
Not a test itself: its name does not end in _test.py.
"""
import json
import os
import random

EXAMPLE = "https://example.com"
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def hand_written():
    """Every construct once or more, with the entities Telegram must show."""
    long_para = " ".join(f"**b{i:03d}** and `c{i:03d} < &` then [l{i:03d}]({EXAMPLE}/l{i:03d}?a=1&b=2)."
                         for i in range(40))
    long_reply = "\n\n".join([long_para] * 3)  # about 9,000 characters: three messages
    emoji_reply = " ".join(["😀&👍🏽"] * 1500)  # astral characters and ampersands across the cut
    long_code = "```python\n" + "\n".join(f"x{i:04d} = a < b and c > d & e" for i in range(200)) + "\n```"
    return [
        ("bold", "Say **bold words** now.", [("bold", "bold words")]),
        ("bold underscores", "Say __under bold__ now.", [("bold", "under bold")]),
        ("italic", "Say *star italic* and _line italic_.", [("italic", "star italic"), ("italic", "line italic")]),
        ("strike", "Say ~~struck out~~ and ~single tilde~.", [("strikethrough", "struck out")]),
        ("nested", "**bold *both* bold** and _it **ib** it_ and ~~s **sb** s~~",
         [("bold", "bold both bold"), ("italic", "both"), ("italic", "it ib it"), ("bold", "ib"),
          ("strikethrough", "s sb s"), ("bold", "sb")]),
        ("bold code", "**bold with `code` inside**", [("bold", "bold with code inside"), ("code", "code")]),
        ("code span", "Run `a < b && c > d` and ``x `y` z``.", [("code", "a < b && c > d"), ("code", "x `y` z")]),
        ("code with tags", "`</code><b>x</b>&amp;` stays code",
         [("code", "</code><b>x</b>&amp;"), ("literal", " stays code")]),
        ("fence language", "```python\nif a < b and c > d:\n    print('&amp;')\n```",
         [("pre", "if a < b and c > d:\n    print('&amp;')", "python")]),
        ("fence c++", "```c++\nstd::vector<int> v; // </pre>\n```", [("pre", "std::vector<int> v; // </pre>", "c++")]),
        ("fence plain", "```\n<b>not bold</b> & co\n```", [("pre", "<b>not bold</b> & co", None)]),
        ("fence odd language", "```a\"b\nx < y\n```", [("pre", "x < y", None)]),
        ("tilde fence", "~~~js\nlet t = `${a}`;\n~~~", [("pre", "let t = `${a}`;", "js")]),
        ("indented code", "Code:\n\n    indented <x>\n    & more", [("pre", "indented <x>\n& more", None)]),
        ("link", f"See [the docs]({EXAMPLE}/a?b=1&c=2).", [("text_link", "the docs", f"{EXAMPLE}/a?b=1&c=2")]),
        ("link quotes", f'See [quoted]({EXAMPLE}/q?x="y"&z=\'w\').',
         [("text_link", "quoted", f"{EXAMPLE}/q?x=\"y\"&z='w'")]),
        ("link reference", f"See [the ref][r] and [&amp; amp]({EXAMPLE}/?a=1&amp;b=2).\n\n[r]: {EXAMPLE}/ref \"T\"",
         [("text_link", "the ref", f"{EXAMPLE}/ref"), ("text_link", "& amp", f"{EXAMPLE}/?a=1&b=2")]),
        ("link styled", f"[**bold** link]({EXAMPLE}/s)",
         [("text_link", "bold link", f"{EXAMPLE}/s"), ("bold", "bold")]),
        ("autolinks", f"Visit <{EXAMPLE}/auto> or {EXAMPLE}/bare today.",
         [("text_link", f"{EXAMPLE}/auto", f"{EXAMPLE}/auto"), ("text_link", f"{EXAMPLE}/bare", f"{EXAMPLE}/bare")]),
        ("www autolink", "Visit www.example.com/www today.", [("text_link", "www.example.com/www")]),
        ("email", "Write to <someone@example.com> or other@example.org.",
         [("literal", "someone@example.com"), ("literal", "other@example.org")]),
        # What TDLib found (tests/channels/telegram/telegram_html_test.cpp has each as a unit case).
        ("mailto link", "[write me](mailto:a@example.com)", [("literal", "write me (a@example.com)")]),
        ("links Telegram drops", "[the docs](/docs/a.html) and [f](ftp://x.org/f)",
         [("literal", "the docs (/docs/a.html)"), ("literal", "f (ftp://x.org/f)")]),
        ("code in link", f"[`make test`]({EXAMPLE}/t) and `x`",
         [("text_link", "make test", f"{EXAMPLE}/t"), ("code", "x")]),
        ("autolink in link", f"[see http://x.org/a here]({EXAMPLE}/)",
         [("text_link", "see http://x.org/a here", f"{EXAMPLE}/")]),
        ("emphasis closed in an autolink", "*see www.example.com*> and _mail http://example.com@_] x",
         [("italic", "see www.example.com*>"), ("italic", "mail http://example.com@_] x")]),
        ("headings", "# Title one\n\n## Sub *two*\n\n###### Six\n\nSetext\n======",
         [("bold", "Title one"), ("bold", "Sub two"), ("italic", "two"), ("bold", "Six"), ("bold", "Setext")]),
        ("lists", "- one\n- **two**\n  - nested a\n  - nested b\n- three\n\n3. c\n4. d",
         [("text", "• one"), ("text", "• two"), ("bold", "two"), ("text", "  • nested a"), ("text", "• three"),
          ("text", "3. c\n4. d")]),
        ("loose list", "1. first\n\n   more of first\n2. second", [("text", "1. first"), ("text", "2. second")]),
        ("quote", "> quoted *text*\n>\n> more", [("blockquote", "quoted text\n\nmore"), ("italic", "text")]),
        ("nested quote", "> outer\n> > inner **b**\n\nafter", [("blockquote", "outer\n\ninner b"), ("bold", "b"),
                                                                  ("literal", "after")]),
        ("quote with code", "> ```\n> q < r\n> ```", [("blockquote", "q < r"), ("pre", "q < r", None)]),
        ("table", "| h1 | h *2* |\n|---|:-:|\n| a & b | `c` |\n| [l](https://example.com/t) | e |",
         [("bold", "h1"), ("bold", "h 2"), ("italic", "2"), ("text", "a & b | c"), ("code", "c"),
          ("text_link", "l", f"{EXAMPLE}/t")]),
        ("image", f"![a cat]({EXAMPLE}/cat.png) and ![**alt**]({EXAMPLE}/b.png)",
         [("literal", f"a cat ({EXAMPLE}/cat.png)"), ("literal", f"alt ({EXAMPLE}/b.png)")]),
        ("html-looking", "<b>not bold</b> <script>x</script> <div>\n\na < b > c & d <br> <t1234>",
         [("literal", "<b>not bold</b> <script>x</script> <div>"), ("literal", "a < b > c & d <br> <t1234>")]),
        ("references", "AT&amp;T &lt;tag&gt; &quot;q&quot; &#65;&#x42; &#x1F600; &apos;s &copy;",
         [("literal", "AT&T <tag> \"q\" AB 😀 's &copy;")]),
        ("escapes", "\\*not italic\\* \\_x\\_ \\[y\\] \\`z\\` \\<w\\> \\&amp;",
         [("literal", "*not italic* _x_ [y] `z` <w> &amp;")]),
        ("emoji", "Flags 🇩🇪 family 👨‍👩‍👧 skin 👍🏽 **bold 🎉**",
         [("literal", "Flags 🇩🇪 family 👨‍👩‍👧 skin 👍🏽"), ("bold", "bold 🎉")]),
        ("hr and breaks", "line one\\\nline two\n\n---\n\n***\n\nend",
         [("text", "line one\nline two"), ("text", "———")]),
        ("long", long_reply,
         [("bold", "b039"), ("code", "c000 < &"), ("text_link", "l020", f"{EXAMPLE}/l020?a=1&b=2")]),
        ("long emoji", emoji_reply, [("literal", "😀&👍🏽 😀&👍🏽")]),
        ("long code", long_code, [("text", "x0000 = a < b and c > d & e"), ("text", "x0199 = a < b and c > d & e")]),
    ]


class Generator:
    """Random Markdown from the same pieces; every piece carries unique words (t0001, t0002, …) so its
    expectation finds exactly its own text."""

    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.n = 0

    def tok(self):
        self.n += 1
        return f"t{self.n:04d}"

    def words(self):
        return " ".join(self.tok() for _ in range(self.rnd.randint(1, 3)))

    def url(self):
        extra = self.rnd.choice(["", "?a=1&b=2", '?q="x"', "#frag", "/deeper/path.html", "?s=a%20b"])
        return f"{EXAMPLE}/{self.tok()}{extra}"

    # Each inline piece returns (markdown, what Telegram shows, expectations).
    def styled(self):
        w = self.words()
        kind, md = self.rnd.choice([("bold", f"**{w}**"), ("bold", f"__{w}__"), ("italic", f"*{w}*"),
                                    ("italic", f"_{w}_"), ("strikethrough", f"~~{w}~~")])
        return md, w, [(kind, w)]

    def nested(self):
        a, b, c = self.tok(), self.tok(), self.tok()
        outer, inner = self.rnd.choice([("**", "*"), ("**", "_"), ("_", "**"), ("~~", "**"), ("**", "~~")])
        names = {"**": "bold", "*": "italic", "_": "italic", "~~": "strikethrough"}
        return (f"{outer}{a} {inner}{b}{inner} {c}{outer}", f"{a} {b} {c}",
                [(names[outer], f"{a} {b} {c}"), (names[inner], b)])

    def code(self):
        body = self.rnd.choice(["{} < b", "a && {}", "</code>{}", "<b>{}</b>", '"{}" > x', "{} &amp; &lt;"])
        body = body.format(self.tok())
        return f"`{body}`", body, [("code", body)]

    def link(self):
        w, url = self.words(), self.url()
        if self.rnd.random() < 0.3:
            b = self.tok()
            return f"[**{b}** {w}]({url})", f"{b} {w}", [("text_link", f"{b} {w}", url), ("bold", b)]
        return f"[{w}]({url})", w, [("text_link", w, url)]

    def autolink(self):
        url = self.url().split("?")[0].split("#")[0]
        md = f"<{url}>" if self.rnd.random() < 0.5 else url
        return md, url, [("text_link", url, url)]

    def image(self):
        w, url = self.words(), f"{EXAMPLE}/{self.tok()}.png"
        shown = f"{w} ({url})"
        return f"![{w}]({url})", shown, [("literal", shown)]

    def literal(self):
        t = self.tok()
        md, shown = self.rnd.choice([
            (f"<b>{t}</b>", f"<b>{t}</b>"), (f"<div>{t}</div>", f"<div>{t}</div>"), (f"a < {t} > c", f"a < {t} > c"),
            (f"{t} & co", f"{t} & co"), (f"AT&amp;T {t}", f"AT&T {t}"), (f"&#x1F600; {t} &#169;", f"😀 {t} ©"),
            (f"&lt;{t}&gt;", f"<{t}>"), (f"\\*{t}\\*", f"*{t}*"), (f"🇩🇪 {t} 👍🏽", f"🇩🇪 {t} 👍🏽"),
            (f'"{t}" \'q\'', f'"{t}" \'q\''), (f"{t}@example.com", f"{t}@example.com")])
        return md, shown, [("literal", shown)]

    def inline(self, literal_ok=True):
        pieces = [self.styled, self.nested, self.code, self.link, self.autolink]
        if literal_ok:  # shown without an entity: not in a heading (bold)
            pieces += [self.literal, self.literal, self.image]
        return self.rnd.choice(pieces)()

    def line(self, literal_ok=True, count=None):
        mds, shown, expect = [], [], []
        for _ in range(count or self.rnd.randint(1, 4)):
            if self.rnd.random() < 0.3:
                w = self.words()
                mds.append(w)
                shown.append(w)
                continue
            md, s, e = self.inline(literal_ok)
            mds.append(md)
            shown.append(s)
            expect += e
        return " ".join(mds), " ".join(shown), expect

    # Each block returns (markdown, expectations).
    def paragraph(self):
        md, _, e = self.line()
        if self.rnd.random() < 0.2:
            md2, _, e2 = self.line()
            md, e = md + "\n" + md2, e + e2
        return md, e

    def heading(self):
        md, shown, e = self.line(literal_ok=False, count=self.rnd.randint(1, 2))
        if self.rnd.random() < 0.8:
            return "#" * self.rnd.randint(1, 6) + " " + md, e + [("bold", shown)]
        return md + "\n" + self.rnd.choice("=-") * 3, e + [("bold", shown)]

    def fence(self):
        lang = self.rnd.choice(["", "python", "c++", "js", "sh", "rust"])
        t = self.tok()
        body = "\n".join(self.rnd.sample([f"if a < b && {t}:", "  return x > y", "print('&amp; </pre>')",
                                          "<b>no</b>", "s = \"q\"", "    deep"], self.rnd.randint(1, 4)))
        if body.startswith(" ") or t not in body:
            body = f"{t} = 1\n" + body
        fence = self.rnd.choice(["```", "~~~"])
        return f"{fence}{lang}\n{body}\n{fence}", [("pre", body, lang or None)]

    def indented(self):
        md, e = self.paragraph()
        t = self.tok()
        return f"{md}\n\n    {t} < x\n    & y", e + [("pre", f"{t} < x\n& y", None)]

    def bullet_list(self, depth=0, ordered=None):
        ordered = self.rnd.random() < 0.4 if ordered is None else ordered
        start = self.rnd.randint(1, 9)
        bullet = self.rnd.choice("-*+") + " "  # one list: another bullet character would start another list
        lines, expect = [], []
        for i in range(self.rnd.randint(1, 4)):
            md, shown, e = self.line()
            lines.append("  " * depth + (f"{start + i}. " if ordered else bullet) + md)
            expect += e + [("text", "  " * depth + (f"{start + i}. " if ordered else "• ") + shown)]
            if depth == 0 and not ordered and self.rnd.random() < 0.25:
                sub, sub_e = self.bullet_list(depth + 1, ordered=False)
                lines.append(sub)
                expect += sub_e
        return "\n".join(lines), expect

    def quote(self):
        md, shown, e = self.line()
        text = f"> {md}"
        if self.rnd.random() < 0.3:
            md2, shown2, e2 = self.line()
            text += f"\n>\n> > {md2}"
            shown, e = f"{shown}\n\n{shown2}", e + e2
        return text, e + [("blockquote", shown)]

    def table(self):
        cols = self.rnd.randint(2, 3)
        heads = [self.tok() for _ in range(cols)]
        rows, expect = [], [("bold", h) for h in heads]
        for _ in range(self.rnd.randint(1, 3)):
            cells = []
            shown = []
            for _ in range(cols):
                md, s, e = self.rnd.choice([self.styled, self.code, self.link, self.literal])()
                while "|" in md:
                    md, s, e = self.styled()
                cells.append(md)
                shown.append(s)
                expect += e
            rows.append("| " + " | ".join(cells) + " |")
            expect.append(("text", " | ".join(shown)))
        head = "| " + " | ".join(heads) + " |\n|" + "---|" * cols
        return head + "\n" + "\n".join(rows), expect

    def block(self):
        return self.rnd.choice([self.paragraph, self.paragraph, self.heading, self.fence, self.indented,
                                self.bullet_list, self.quote, self.table, lambda: ("---", [("text", "———")])])()

    def reply(self, max_chars=3500):
        self.n = 0
        while True:
            blocks, expect = [], []
            for _ in range(self.rnd.randint(1, 8)):
                md, e = self.block()
                if blocks and is_list(md) and is_list(blocks[-1]):
                    continue  # two lists in a row would be one list (and its numbers would run on)
                blocks.append(md)
                expect += e
            md = "\n\n".join(blocks)
            if len(md) <= max_chars:
                return md, expect


def demo_replies():
    """The replies of the replay demo (examples/demo-replay.jsonl, what sigil plays without a model and the web
    tests show), directives and all: no expectations, but every message must parse."""
    out = []
    with open(os.path.join(ROOT, "examples", "demo-replay.jsonl"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                out.append((f"demo {len(out)}", json.loads(line)["reply"], []))
    return out


def is_list(md):
    return md[:2] in ("- ", "* ", "+ ") or md[:1].isdigit()


def fuzzed(seed, count):
    g = Generator(seed)
    return [(f"fuzz {i}", *g.reply()) for i in range(count)]


# Markdown's and HTML's special characters and the constructs they start, for replies no one would write: what
# Telegram shows of them is not predicted (no expectations), but every one must parse.
CHAOS = ["*", "**", "***", "_", "__", "~", "~~", "`", "``", "```", "~~~", "[", "]", "](", ")", "(", "<", ">", "</",
         "/>", "&", "&amp;", "&#", "&#x", "&lt", ";", "#", "# ", "\n", "\n\n", "- ", "* ", "1. ", "2) ", "> ", "> > ",
         "|", "| --- |", "---", "===", "!", "![", "\\", "\"", "'", "=", "http://x.y/", "https://e.com/a?b=1&c=2",
         "www.a.bc", "a@b.cd", "mailto:", "<b>", "</i>", "<a href=\"x\">", "<pre>", "<code>", "😀", "👍🏽", "é",
         "\t", "    ", " ", " ", "word", "more", "0", "9"]


def chaos(seed, count):
    rnd = random.Random(seed)
    return [(f"chaos {i}", f"z{i} " + "".join(rnd.choice(CHAOS) for _ in range(rnd.randint(5, 150))), [])
            for i in range(count)]
