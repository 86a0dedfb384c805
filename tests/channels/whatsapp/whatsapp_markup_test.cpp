// Markdown rendered to WhatsApp's formatting (channels/whatsapp/whatsapp_markup.h).
#include "sigil/channels/whatsapp/whatsapp_markup.h"

#include <gtest/gtest.h>

namespace sigil::channels::whatsapp {
namespace {

const std::string kZwsp = "\xE2\x80\x8B";

TEST(WhatsAppMarkup, SpansBecomeWhatsAppsMarkers) {
  EXPECT_EQ(render_whatsapp("**bold** and *italic* and ~~gone~~"), "*bold* and _italic_ and ~gone~");
  EXPECT_EQ(render_whatsapp("run `ls -l` now"), "run `ls -l` now");
  EXPECT_EQ(render_whatsapp("***both***"), "_*both*_");
}

TEST(WhatsAppMarkup, CodeBlocksAreMonospaceWithoutTheirLanguage) {
  EXPECT_EQ(render_whatsapp("```python\nprint(1)\n```"), "```\nprint(1)\n```");
  // "```" inside would end the block early: a zero-width space between the backticks.
  EXPECT_EQ(render_whatsapp("~~~\na ``` b\n~~~"), "```\na `" + kZwsp + "`` b\n```");
  // **x** in code is code, not bold.
  EXPECT_EQ(render_whatsapp("```\n**x**\n```"), "```\n**x**\n```");
}

TEST(WhatsAppMarkup, QuotesListsHeadingsAndRules) {
  EXPECT_EQ(render_whatsapp("> a\n> b"), "> a\n> b");
  EXPECT_EQ(render_whatsapp("- one\n- two"), "- one\n- two");
  EXPECT_EQ(render_whatsapp("1. one\n2. two"), "1. one\n2. two");
  EXPECT_EQ(render_whatsapp("# Title\n\ntext"), "*Title*\n\ntext");
  EXPECT_EQ(render_whatsapp("a\n\n---\n\nb"), "a\n\n———\n\nb");
}

TEST(WhatsAppMarkup, LinksShowTheirUrlAfterTheText) {
  EXPECT_EQ(render_whatsapp("[the docs](https://example.org/d)"), "the docs (https://example.org/d)");
  EXPECT_EQ(render_whatsapp("see https://example.org"), "see https://example.org");
  EXPECT_EQ(render_whatsapp("<https://example.org>"), "https://example.org");
  // No formatting inside a link's text.
  EXPECT_EQ(render_whatsapp("[**x**](https://e.org)"), "x (https://e.org)");
}

TEST(WhatsAppMarkup, LiteralFormattingCharactersStayLiteral) {
  // A '*' that could open bold gets a zero-width space before it; one inside a word cannot open and stays.
  EXPECT_EQ(render_whatsapp("2 \\* 3 \\* 4"), "2 " + kZwsp + "* 3 " + kZwsp + "* 4");
  EXPECT_EQ(render_whatsapp("snake_case_name"), "snake_case_name");
  EXPECT_EQ(render_whatsapp("\\_not italic\\_"), kZwsp + "_not italic_");
  // A backtick inside a code span would end it: the span is literal text.
  EXPECT_EQ(render_whatsapp("`` a`b ``"), "a`b");
  // Raw HTML is text.
  EXPECT_EQ(render_whatsapp("<b>x</b>"), "<b>x</b>");
  // No markup of the directive language or Markdown syntax reaches the chat as such.
  EXPECT_EQ(render_whatsapp("a  \nb"), "a\nb");
}

}  // namespace
}  // namespace sigil::channels::whatsapp
