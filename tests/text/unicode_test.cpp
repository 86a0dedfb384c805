#include "sigil/text/unicode.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sigil::text {
namespace {

TEST(Unicode, AsciiPunctuation) {
  for (char32_t c : std::u32string_view(U"\"'(.![*_!#%&),-/:;?@\\]{}"))
    EXPECT_TRUE(is_punctuation(c)) << static_cast<unsigned>(c);
  for (char32_t c : std::u32string_view(U"~$>+<=^`|azAZ09 \t\n"))
    EXPECT_FALSE(is_punctuation(c)) << static_cast<unsigned>(c);
  EXPECT_FALSE(is_punctuation(0));
}

TEST(Unicode, NonAsciiPunctuation) {
  EXPECT_TRUE(is_punctuation(U'\u2026'));       // … Po
  EXPECT_TRUE(is_punctuation(U'\u00AB'));       // « Pi
  EXPECT_TRUE(is_punctuation(U'\u00BB'));       // » Pf
  EXPECT_TRUE(is_punctuation(U'\u00A1'));       // ¡ Po
  EXPECT_TRUE(is_punctuation(U'\u2014'));       // — Pd
  EXPECT_TRUE(is_punctuation(U'\u300C'));       // 「 Ps
  EXPECT_TRUE(is_punctuation(U'\u300D'));       // 」 Pe
  EXPECT_TRUE(is_punctuation(U'\u203F'));       // ‿ Pc
  EXPECT_TRUE(is_punctuation(U'\u201C'));       // “ Pi
  EXPECT_FALSE(is_punctuation(U'\u00A9'));      // © So
  EXPECT_FALSE(is_punctuation(U'\U0001F44D'));  // 👍 So
  EXPECT_FALSE(is_punctuation(U'\u00E9'));
  EXPECT_FALSE(is_punctuation(0x110000));
  EXPECT_FALSE(is_punctuation(0xD800));
}

TEST(Unicode, LowercaseLetter) {
  EXPECT_TRUE(is_lowercase_letter(U'a'));
  EXPECT_TRUE(is_lowercase_letter(U'z'));
  EXPECT_FALSE(is_lowercase_letter(U'A'));
  EXPECT_FALSE(is_lowercase_letter(U'_'));
  EXPECT_TRUE(is_lowercase_letter(U'\u00E9'));   // é
  EXPECT_FALSE(is_lowercase_letter(U'\u00C9'));  // É
  EXPECT_TRUE(is_lowercase_letter(U'\u03B1'));   // α
  EXPECT_FALSE(is_lowercase_letter(U'\u4E2D'));  // 中 is Lo
  EXPECT_FALSE(is_lowercase_letter(0x110000));
}

TEST(Unicode, DecimalDigit) {
  for (char32_t c = U'0'; c <= U'9'; ++c) EXPECT_TRUE(is_decimal_digit(c));
  EXPECT_FALSE(is_decimal_digit(U'a'));
  EXPECT_TRUE(is_decimal_digit(U'\u0663'));   // ARABIC-INDIC DIGIT THREE
  EXPECT_TRUE(is_decimal_digit(U'\uFF15'));   // FULLWIDTH DIGIT FIVE
  EXPECT_FALSE(is_decimal_digit(U'\u00B2'));  // ² is No
  EXPECT_FALSE(is_decimal_digit(U'\u2167'));  // Ⅷ is Nl
}

TEST(Unicode, DecodeAt) {
  const std::string s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x91\x8D";
  std::size_t len = 99;
  EXPECT_EQ(decode_at(s, 0, &len), U'a');
  EXPECT_EQ(len, 1u);
  EXPECT_EQ(decode_at(s, 1, &len), U'\u00E9');
  EXPECT_EQ(len, 2u);
  EXPECT_EQ(decode_at(s, 3, &len), U'\u20AC');
  EXPECT_EQ(len, 3u);
  EXPECT_EQ(decode_at(s, 6, &len), U'\U0001F44D');
  EXPECT_EQ(len, 4u);
  EXPECT_EQ(decode_at(s, s.size(), &len), 0u);
  EXPECT_EQ(len, 0u);
  EXPECT_EQ(decode_at("\xF4\x8F\xBF\xBF", 0, &len), 0x10FFFFu);
  EXPECT_EQ(len, 4u);
}

TEST(Unicode, DecodeAtIllFormedAdvancesByUnit) {
  std::size_t len = 0;
  EXPECT_EQ(decode_at("\xFF", 0, &len), U'\uFFFD');
  EXPECT_EQ(len, 1u);
  EXPECT_EQ(decode_at("\xE2\x82"
                      "b",
                      0, &len),
            U'\uFFFD');
  EXPECT_EQ(len, 2u);
  EXPECT_EQ(decode_at("\xED\xA0\x80", 0, &len), U'\uFFFD');
  EXPECT_EQ(len, 1u);
  EXPECT_EQ(decode_at("\xF0\x9F\x91", 0, &len), U'\uFFFD');
  EXPECT_EQ(len, 3u);
  EXPECT_EQ(decode_at("\xC0\xAF", 0, &len), U'\uFFFD');
  EXPECT_EQ(len, 1u);
  EXPECT_EQ(decode_at("\x80", 0, &len), U'\uFFFD');
  EXPECT_EQ(len, 1u);
}

}  // namespace
}  // namespace sigil::text
