// The Slack names of the emoji a model reacts with (channels/slack/emoji_names.h).
#include "sigil/channels/slack/emoji_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace sigil::channels::slack {
namespace {

TEST(SlackEmojiNames, CommonEmojiHaveTheirSlackNames) {
  EXPECT_EQ(slack_reaction_name("\xF0\x9F\x91\x8D"), "+1");             // 👍
  EXPECT_EQ(slack_reaction_name("\xF0\x9F\x8E\x89"), "tada");           // 🎉
  EXPECT_EQ(slack_reaction_name("\xF0\x9F\x91\x80"), "eyes");           // 👀
  EXPECT_EQ(slack_reaction_name("\xE2\x9D\xA4\xEF\xB8\x8F"), "heart");  // ❤️
  EXPECT_EQ(slack_reaction_name("\xE2\x9D\xA4"), "heart");              // ❤ without U+FE0F
  EXPECT_EQ(slack_reaction_name("\xE2\x9A\xA0"), "warning");            // ⚠ without U+FE0F
}

TEST(SlackEmojiNames, NamesArePassedOnWithoutColons) {
  EXPECT_EQ(slack_reaction_name(":thumbsup:"), "thumbsup");
  EXPECT_EQ(slack_reaction_name("sigil_logo"), "sigil_logo");
  EXPECT_EQ(slack_reaction_name("+1::skin-tone-3"), std::nullopt);  // colons inside: not a plain name
}

TEST(SlackEmojiNames, AnEmojiSlackHasNoNameForIsNone) {
  EXPECT_EQ(slack_reaction_name("\xF0\x9F\xA6\x96"), std::nullopt);  // 🦖: not in the table
  EXPECT_EQ(slack_reaction_name(""), std::nullopt);
  EXPECT_EQ(slack_reaction_name("Thumbs Up"), std::nullopt);
}

TEST(SlackEmojiNames, TheCapabilitiesListEveryEmojiOnce) {
  const auto& all = reaction_emoji();
  EXPECT_GT(all.size(), 100u);
  for (const std::string& e : all) EXPECT_TRUE(slack_reaction_name(e).has_value()) << e;
  auto sorted = all;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
}

}  // namespace
}  // namespace sigil::channels::slack
