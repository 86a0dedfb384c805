// Markdown rendered and escaped for Discord (channels/discord/discord_markdown.h).
#include "sigil/channels/discord/discord_markdown.h"

#include <gtest/gtest.h>

#include <string>

#include "channels/nul_replies.h"
#include "support/expect_each.h"

namespace sigil::channels::discord {
namespace {

TEST(DiscordMarkdown, SpansInDiscordSyntax) {
  test::expect_each(
      render_discord_markdown,
      {
          {"Here is **bold**, *it*, ~~gone~~ and `code`.", "Here is **bold**, *it*, ~~gone~~ and `code`."},
          {"__strong__ and _em_", "**strong** and *em*"},
          {"[a link](https://example.com/?a=1&b=2)", "[a link](https://example.com/?a=1&b=2)"},
          {"see https://example.com/a_b_c now", "see https://example.com/a_b_c now"},
      });
}

TEST(DiscordMarkdown, BlocksInDiscordSyntax) {
  test::expect_each(render_discord_markdown, {
                                                 {"# Title\n\ntext", "# Title\n\ntext"},
                                                 {"#### Small", "**Small**"},
                                                 {"* one\n* two", "- one\n- two"},
                                                 {"3. three\n4. four", "3. three\n4. four"},
                                                 {"> quoted\n> more\n\nafter", "> quoted\n> more\n\nafter"},
                                                 {"```cpp\nint x = a*b;\n```", "```cpp\nint x = a*b;\n```"},
                                                 {"| a | b |\n|---|---|\n| 1 | 2 |", "**a** | **b**\n1 | 2"},
                                             });
}

TEST(DiscordMarkdown, LiteralTextIsEscaped) {
  test::expect_each(render_discord_markdown,
                    {
                        {"a \\*literal\\* star and snake\\_case", "a \\*literal\\* star and snake\\_case"},
                        {"a < b & c", "a < b & c"},
                        {"hi <@123> and ||spoiler||", "hi \\<@123> and \\|\\|spoiler\\|\\|"},
                        {"x \\# not a heading", "x # not a heading"},
                    });
  EXPECT_EQ(escape_discord_text("# not a heading", true), "\\# not a heading");
  EXPECT_EQ(escape_discord_text("1. not a list", true), "1\\. not a list");
  EXPECT_EQ(escape_discord_text("- not a list", true), "\\- not a list");
  EXPECT_EQ(escape_discord_text("- fine mid-line", false), "- fine mid-line");
  EXPECT_EQ(render_discord_markdown("&amp; &#42; &copy;"), "& \\* &copy;");  // unknown names stay
}

TEST(DiscordMarkdown, CodeIsKeptAndCannotBreakOut) {
  EXPECT_EQ(render_discord_markdown("`a*b_c`"), "`a*b_c`");
  EXPECT_EQ(render_discord_markdown("``a`b``"), "``a`b``");
  const std::string fenced = render_discord_markdown("~~~\nx ``` y\n~~~");
  EXPECT_EQ(fenced, "```\nx `\u200b`` y\n```");
  EXPECT_EQ(fenced.find("```", 3), fenced.size() - 3);  // the only closing fence is the last
}

// CommonMark shows a NUL as U+FFFD (2.3), once, in code spans and blocks too: no NUL byte reaches the chat.
TEST(DiscordMarkdown, ANulInTheTextIsTheReplacementCharacter) {
  testing::expect_nul_renders(
      [](const std::string& reply) { return render_discord_markdown(reply); },
      {"a\uFFFDb *c\uFFFD*", "a `x\uFFFDy` b", "```\nc\uFFFDd\uFFFD\uFFFD\n```", "```\n\uFFFDe\n```"});
}

TEST(DiscordMarkdown, NoRawMarkupOrStrayWhitespace) {
  const std::string out = render_discord_markdown("\n\nPara one.\n\n\nPara two.\n\n");
  EXPECT_EQ(out, "Para one.\n\nPara two.");
  EXPECT_EQ(render_discord_markdown("<b>raw html</b>"), "<b>raw html</b>");
  EXPECT_EQ(render_discord_markdown("![alt text](https://x.test/p.png)"), "alt text (https://x.test/p.png)");
}

}  // namespace
}  // namespace sigil::channels::discord
