#include "sigil/text/emoji_compare.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sigil::text {
namespace {

constexpr std::string_view kHeart = "\u2764";       // ❤ U+2764
constexpr std::string_view kVs15 = "\xEF\xB8\x8E";  // U+FE0E text style
constexpr std::string_view kVs16 = "\xEF\xB8\x8F";  // U+FE0F emoji style

TEST(EmojiCompare, RemovesBothVariationSelectors) {
  EXPECT_EQ(without_variation_selectors(std::string(kHeart) + std::string(kVs16)), kHeart);
  EXPECT_EQ(without_variation_selectors(std::string(kHeart) + std::string(kVs15)), kHeart);
  // Keycap: 1 U+FE0F U+20E3 keeps its combining mark.
  EXPECT_EQ(without_variation_selectors("1\xEF\xB8\x8F\xE2\x83\xA3"), "1\xE2\x83\xA3");
  // Several, anywhere (a ZWJ sequence: 🏳️‍🌈).
  EXPECT_EQ(without_variation_selectors("\xF0\x9F\x8F\xB3\xEF\xB8\x8F\xE2\x80\x8D\xF0\x9F\x8C\x88"),
            "\xF0\x9F\x8F\xB3\xE2\x80\x8D\xF0\x9F\x8C\x88");
  EXPECT_EQ(without_variation_selectors(std::string(kVs16) + std::string(kVs15)), "");
}

TEST(EmojiCompare, KeepsEverythingElse) {
  EXPECT_EQ(without_variation_selectors(""), "");
  EXPECT_EQ(without_variation_selectors("thumbsup"), "thumbsup");
  EXPECT_EQ(without_variation_selectors("\xF0\x9F\x91\x8D"), "\xF0\x9F\x91\x8D");  // 👍
  // Other code points sharing the EF B8 lead bytes (U+FE0D, U+FE10) stay.
  EXPECT_EQ(without_variation_selectors("\xEF\xB8\x8D\xEF\xB8\x90"), "\xEF\xB8\x8D\xEF\xB8\x90");
  // A truncated selector at the end is not one; ill-formed bytes are kept as they are.
  EXPECT_EQ(without_variation_selectors("a\xEF\xB8"), "a\xEF\xB8");
  EXPECT_EQ(without_variation_selectors("\xFF\xEF"), "\xFF\xEF");
}

TEST(EmojiCompare, SameEmojiIgnoresSelectorsOnly) {
  EXPECT_TRUE(same_emoji(kHeart, std::string(kHeart) + std::string(kVs16)));
  EXPECT_TRUE(same_emoji(std::string(kHeart) + std::string(kVs15), std::string(kHeart) + std::string(kVs16)));
  EXPECT_TRUE(same_emoji("", ""));
  EXPECT_FALSE(same_emoji(kHeart, "\xF0\x9F\x91\x8D"));
  // A skin tone is a different emoji, not a presentation variant.
  EXPECT_FALSE(same_emoji("\xF0\x9F\x91\x8D", "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD"));
}

}  // namespace
}  // namespace sigil::text
