// Markdown rendered and escaped as Slack's mrkdwn (channels/slack/slack_mrkdwn.h).
#include "sigil/channels/slack/slack_mrkdwn.h"

#include <gtest/gtest.h>

#include <string>

#include "support/expect_each.h"

namespace sigil::channels::slack {
namespace {

const std::string Z = "\xE2\x80\x8B";  // the zero-width space that keeps a formatting character literal

TEST(SlackMrkdwn, SpansInSlackSyntax) {
  test::expect_each(render_slack_mrkdwn, {
                                             {"Here is **bold**, *it*, ~~gone~~ and `code`.",
                                              "Here is *bold*, _it_, ~gone~ and `code`."},
                                             {"__strong__ and _em_", "*strong* and _em_"},
                                             {"***both***", "_*both*_"},
                                         });
}

TEST(SlackMrkdwn, LinksAreAngleBracketsWithAPipe) {
  test::expect_each(
      render_slack_mrkdwn,
      {
          {"[a link](https://example.com/?a=1&b=2)", "<https://example.com/?a=1&amp;b=2|a link>"},
          {"see https://example.com/a_b_c now", "see <https://example.com/a_b_c> now"},
          {"[**no** bold](https://x.org/a|b)", "<https://x.org/a%7Cb|no bold>"},
          {"[1 < 2](https://x.org)", "<https://x.org|1 &lt; 2>"},
      });
}

TEST(SlackMrkdwn, AmpersandAndAngleBracketsAreEscapedEverywhere) {
  test::expect_each(render_slack_mrkdwn,
                    {
                        {"Tom & Jerry <@U123> <!channel>", "Tom &amp; Jerry &lt;@U123&gt; &lt;!channel&gt;"},
                        {"`a<b && c>d`", "`a&lt;b &amp;&amp; c&gt;d`"},
                        {"```\nif (a < b) {}\n```", "```\nif (a &lt; b) {}\n```"},
                        {"AT&amp;T", "AT&amp;T"},
                    });
}

TEST(SlackMrkdwn, LiteralFormattingCharactersStayLiteral) {
  test::expect_each(render_slack_mrkdwn, {
                                             {"2 \\* 3 \\* 4", "2 " + Z + "* 3 " + Z + "* 4"},
                                             {"snake_case_name", "snake_case_name"},
                                             {"\\_not italic\\_", Z + "_not italic_"},
                                             {"\\~\\~nope\\~\\~", Z + "~~nope~~"},
                                             {"`` a`b ``", "a`b"},
                                         });
}

TEST(SlackMrkdwn, Blocks) {
  test::expect_each(render_slack_mrkdwn, {
                                             {"# Title\n\ntext", "*Title*\n\ntext"},
                                             {"* one\n* two", "\xE2\x80\xA2 one\n\xE2\x80\xA2 two"},
                                             {"3. three\n4. four", "3. three\n4. four"},
                                             {"> quoted\n> > deeper", "> quoted\n> \n> deeper"},
                                             {"```python\nprint(1)\n```", "```\nprint(1)\n```"},
                                             {"```\na ``` b\n```", "```\na `" + Z + "`` b\n```"},
                                             {"---", "\xE2\x80\x94\xE2\x80\x94\xE2\x80\x94"},
                                             {"| a | b |\n|---|---|\n| 1 | 2 |", "*a* | *b*\n1 | 2"},
                                         });
}

TEST(SlackMrkdwn, PlainTextIsEscapedAsLiteral) {
  EXPECT_EQ(escape_slack_text("a *b* & <c>", false), "a " + Z + "*b* &amp; &lt;c&gt;");
  EXPECT_EQ(escape_slack_text("x*y", false), "x*y");
}

}  // namespace
}  // namespace sigil::channels::slack
