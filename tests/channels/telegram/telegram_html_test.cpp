// Markdown -> Telegram HTML (channels/telegram/telegram_html.h).
#include "sigil/channels/telegram/telegram_html.h"

#include <gtest/gtest.h>

#include <string>

#include "channels/nul_replies.h"
#include "sigil/deliver/split.h"
#include "support/expect_each.h"

namespace sigil::channels::telegram {
namespace {

TEST(TelegramHtml, EscapesTheThreeCharactersEverywhere) {
  test::expect_each(render_telegram_html,
                    {
                        {"a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"},
                        {"`x<y>&z`", "<code>x&lt;y&gt;&amp;z</code>"},
                        {"```\n<b>not bold</b> & co\n```", "<pre>&lt;b&gt;not bold&lt;/b&gt; &amp; co</pre>"},
                    });
}

TEST(TelegramHtml, RawHtmlFromTheModelIsText) {
  EXPECT_EQ(render_telegram_html("<b>hi</b> <script>x</script>"),
            "&lt;b&gt;hi&lt;/b&gt; &lt;script&gt;x&lt;/script&gt;");
  EXPECT_EQ(render_telegram_html("<div>\nblock\n</div>"), "&lt;div&gt;\nblock\n&lt;/div&gt;");
}

TEST(TelegramHtml, EmphasisNestsProperly) {
  test::expect_each(render_telegram_html,
                    {
                        {"**bold *both* bold** and ~~gone~~", "<b>bold <i>both</i> bold</b> and <s>gone</s>"},
                        {"_it_ **b**", "<i>it</i> <b>b</b>"},
                        // An unclosed marker is literal text, not a tag left open.
                        {"**not closed", "**not closed"},
                    });
}

TEST(TelegramHtml, CodeBlocksWithAndWithoutLanguage) {
  test::expect_each(render_telegram_html,
                    {
                        {"```python\nprint(1 < 2)\n```",
                         "<pre><code class=\"language-python\">print(1 &lt; 2)</code></pre>"},
                        {"    indented\n    code", "<pre>indented\ncode</pre>"},
                        // A language that is not a plain word is left out rather than put into an attribute.
                        {"```a\"b\nx\n```", "<pre>x</pre>"},
                        // Markdown inside code is code.
                        {"`**x**`", "<code>**x**</code>"},
                    });
}

TEST(TelegramHtml, Links) {
  test::expect_each(
      render_telegram_html,
      {
          {"[the docs](https://example.com/a?b=1&c=\"2\")",
           "<a href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\">the docs</a>"},
          {"see https://example.com now", "see <a href=\"https://example.com\">https://example.com</a> now"},
          {"[**bold** link](http://x.org)", "<a href=\"http://x.org\"><b>bold</b> link</a>"},
          {"![a cat](http://x.org/cat.png)", "a cat (http://x.org/cat.png)"},
      });
}

// Found by TDLib (cli.telegram_entities_test): Telegram's parser takes each of these, but shows them wrong.
TEST(TelegramHtml, EmailAddressesAreTextNotMailtoLinks) {
  // <a href="mailto:…"> became a link to "http://mailto:a@b.c/"; Telegram links an address by itself.
  EXPECT_EQ(render_telegram_html("Write to <a@example.com> or b@example.org."),
            "Write to a@example.com or b@example.org.");
  EXPECT_EQ(render_telegram_html("[write me](mailto:a@example.com)"), "write me (a@example.com)");
}

TEST(TelegramHtml, LinksTelegramWouldDropShowWhereTheyPoint) {
  // A relative, ftp: or javascript: href: Telegram drops the link silently; the reader keeps the target.
  test::expect_each(render_telegram_html,
                    {
                        {"[the docs](/docs/a.html) [f](ftp://x.org/f) [x](javascript:alert(1))",
                         "the docs (/docs/a.html) f (ftp://x.org/f) x (javascript:alert(1))"},
                        {"Visit www.example.com/www now",
                         "Visit <a href=\"http://www.example.com/www\">www.example.com/www</a> now"},
                        {"[t](tg://user?id=1) [H](HTTPS://X.ORG)",
                         "<a href=\"tg://user?id=1\">t</a> <a href=\"HTTPS://X.ORG\">H</a>"},
                    });
}

TEST(TelegramHtml, CharacterReferencesInALinkAreDecoded) {
  // The href went out as "?a=1&amp;amp;b=2": Telegram linked to "?a=1&amp;b=2".
  test::expect_each(
      render_telegram_html,
      {
          {"[x](https://example.com/?a=1&amp;b=2&#38;c=&quot;3&quot;)",
           "<a href=\"https://example.com/?a=1&amp;b=2&amp;c=&quot;3&quot;\">x</a>"},
          {"![cat](https://example.com/c.png?a&amp;b)", "cat (https://example.com/c.png?a&amp;b)"},
          {"```c&#43;&#43;\nx\n```", "<pre><code class=\"language-c++\">x</code></pre>"},
      });
}

TEST(TelegramHtml, AnAutolinkInALinkIsTheLinksText) {
  // Telegram keeps one of two nested text_links.
  EXPECT_EQ(render_telegram_html("[see http://x.org/a here](https://example.com/)"),
            "<a href=\"https://example.com/\">see http://x.org/a here</a>");
  EXPECT_EQ(render_telegram_html("[mail a@example.com](https://example.com/)"),
            "<a href=\"https://example.com/\">mail a@example.com</a>");
}

TEST(TelegramHtml, CodeInALinkIsTheLinksText) {
  // Telegram keeps a text_link or a code entity over the same text, never both: the link wins.
  EXPECT_EQ(render_telegram_html("[`make test`](https://example.com/t) and `x`"),
            "<a href=\"https://example.com/t\">make test</a> and <code>x</code>");
}

TEST(TelegramHtml, SpansMd4cLeavesOpenOrClosesTwiceAreBalanced) {
  // md4c can take an emphasis' closer into a permissive autolink: the emphasis never closed ("Can't find end
  // tag corresponding to start tag"), or a closer came without its opener ("Unexpected end tag").
  test::expect_each(render_telegram_html,
                    {
                        {"*see www.example.com*>",
                         "<i>see <a href=\"http://www.example.com*&gt;\">www.example.com*&gt;</a></i>"},
                        {"_mail http://example.com@_] x",
                         "<i>mail <a href=\"http://example.com@_]\">http://example.com@_]</a> x</i>"},
                        {"see http://example.com~~/~~ now",
                         "see <a href=\"http://example.com~~/\">http://example.com~~/</a> now"},
                    });
}

TEST(TelegramHtml, BlocksBecomeLines) {
  test::expect_each(render_telegram_html,
                    {
                        {"# Title\n\nFirst para.\nSame para.\n\nSecond.",
                         "<b>Title</b>\n\nFirst para.\nSame para.\n\nSecond."},
                        {"- one\n- two\n  - nested\n- three", "• one\n• two\n  • nested\n• three"},
                        {"3. c\n4. d", "3. c\n4. d"},
                        {"before\n\n- a\n- b\n\nafter", "before\n\n• a\n• b\n\nafter"},
                        {"> quoted *text*\n>\n> more", "<blockquote>quoted <i>text</i>\n\nmore</blockquote>"},
                        {"> outer\n> > inner", "<blockquote>outer\n\ninner</blockquote>"},
                        {"a\n\n---\n\nb", "a\n\n———\n\nb"},
                        {"| h1 | h2 |\n|---|---|\n| a | b |", "<b>h1</b> | <b>h2</b>\na | b"},
                    });
}

TEST(TelegramHtml, CharacterReferences) {
  EXPECT_EQ(render_telegram_html("&amp; &lt; &copy; &#65; &#x1F600; &#0;"),
            "&amp; &lt; &amp;copy; A \xF0\x9F\x98\x80 \xEF\xBF\xBD");
  // The references the directive language decodes (text::decode_char_refs) decode here too.
  EXPECT_EQ(render_telegram_html("it&apos;s &#x26;"), "it's &amp;");
}

// CommonMark shows a NUL as U+FFFD (2.3), once, in code spans and blocks too: no NUL byte reaches the chat.
TEST(TelegramHtml, ANulInTheTextIsTheReplacementCharacter) {
  testing::expect_nul_renders([](const std::string& reply) { return render_telegram_html(reply); },
                              {"a\uFFFDb <i>c\uFFFD</i>", "a <code>x\uFFFDy</code> b",
                               "<pre>c\uFFFDd\uFFFD\uFFFD</pre>", "<pre>\uFFFDe</pre>"});
}

TEST(TelegramHtml, WhitespaceTrimmedAndEmptyStaysEmpty) {
  EXPECT_EQ(render_telegram_html(""), "");
  EXPECT_EQ(render_telegram_html("\n\n  hi  \n\n"), "hi");
}

TEST(TelegramHtml, VisibleUnitsCountWhatTelegramCounts) {
  EXPECT_EQ(telegram_visible_units("<b>ab</b> &amp; &lt;x&gt;"), 8u);  // "ab & <x>"
  EXPECT_EQ(telegram_visible_units("\xF0\x9F\x98\x80"), 2u);  // an astral character: two UTF-16 units
  EXPECT_EQ(telegram_visible_units("<a href=\"http://x\">é</a>"), 1u);
  EXPECT_EQ(telegram_visible_units("&#x1F600;"), 2u);
}

TEST(TelegramHtml, RenderedTextIsNeverLongerThanItsMarkdown) {
  // Why a Markdown message cut to 4096 UTF-16 units is a message Telegram takes.
  const std::string samples[] = {
      "**bold** and `code` & <tags> [link](https://example.com) ~~strike~~",
      "# Heading\n\n- item one\n- item two\n  1. sub\n\n> quote\n\n```js\nlet a = b && c;\n```\n",
      "| a | b |\n|---|---|\n| 1 | 2 |\n\n***\n\n&copy; &#169; \xF0\x9F\x98\x80",
  };
  for (const std::string& md : samples)
    EXPECT_LE(telegram_visible_units(render_telegram_html(md)),
              deliver::text_units(md, deliver::TextUnit::Utf16))
        << md;
}

TEST(TelegramHtml, SplitMarkdownRendersWithinTheLimitAndNeverCutsACharacterOrEntity) {
  // 3000 astral characters (6000 UTF-16 units) with ampersands: split at 4096 units, each part renders
  // to at most 4096 visible units, and no part ends inside a surrogate pair or an &amp;.
  std::string md;
  for (int i = 0; i < 1500; ++i) md += "\xF0\x9F\x98\x80&\xF0\x9F\x98\x80 ";
  const auto parts = deliver::split_text(md, 4096, deliver::TextUnit::Utf16);
  ASSERT_GE(parts.size(), 2u);
  std::size_t emoji = 0;
  for (const std::string& part : parts) {
    const std::string html = render_telegram_html(part);
    EXPECT_LE(telegram_visible_units(html), 4096u);
    EXPECT_EQ(html.find("&amp"), html.find("&amp;"));
    for (std::size_t at = 0; (at = html.find("&", at)) != std::string::npos; ++at)
      EXPECT_EQ(html.compare(at, 5, "&amp;"), 0) << "a cut inside an entity";
    for (std::size_t at = 0; (at = part.find("\xF0\x9F\x98\x80", at)) != std::string::npos; at += 4) ++emoji;
  }
  EXPECT_EQ(emoji, 3000u);  // every character arrived whole
}

}  // namespace
}  // namespace sigil::channels::telegram
