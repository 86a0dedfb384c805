#include "sigil/text/ascii.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <string_view>

#include "support/expect_each.h"

namespace sigil::text::ascii {
namespace {

// The tests never call setlocale, so <cctype> answers for the "C" locale: every class and both case
// foldings must agree with it on all 256 byte values (bytes >= 0x80 are in no class there either).
TEST(Ascii, ClassesAndFoldingAgreeWithTheCLocaleOnEveryByte) {
  for (int i = 0; i < 256; ++i) {
    const auto c = static_cast<char>(i);
    SCOPED_TRACE(i);
    EXPECT_EQ(is_space(c), std::isspace(i) != 0);
    EXPECT_EQ(is_blank(c), std::isblank(i) != 0);
    EXPECT_EQ(is_digit(c), std::isdigit(i) != 0);
    EXPECT_EQ(is_xdigit(c), std::isxdigit(i) != 0);
    EXPECT_EQ(is_alpha(c), std::isalpha(i) != 0);
    EXPECT_EQ(is_alnum(c), std::isalnum(i) != 0);
    EXPECT_EQ(is_upper(c), std::isupper(i) != 0);
    EXPECT_EQ(is_lower(c), std::islower(i) != 0);
    EXPECT_EQ(static_cast<unsigned char>(lower(c)), std::tolower(i));
    EXPECT_EQ(static_cast<unsigned char>(upper(c)), std::toupper(i));
    EXPECT_EQ(hex_value(c) >= 0, std::isxdigit(i) != 0);
  }
}

TEST(Ascii, MarkupSpaceIsJsonWhitespace) {
  for (const char c : std::string_view(" \t\n\r")) EXPECT_TRUE(is_markup_space(c)) << int(c);
  for (const char c : std::string_view("\f\vx\0", 4)) EXPECT_FALSE(is_markup_space(c)) << int(c);
  EXPECT_FALSE(is_markup_space('\xA0'));  // the second byte of U+00A0 is no space on its own
}

TEST(Ascii, HexValue) {
  EXPECT_EQ(hex_value('0'), 0);
  EXPECT_EQ(hex_value('9'), 9);
  EXPECT_EQ(hex_value('a'), 10);
  EXPECT_EQ(hex_value('F'), 15);
  EXPECT_EQ(hex_value('g'), -1);
  EXPECT_EQ(hex_value('/'), -1);
}

TEST(Ascii, CaseFoldingLeavesUtf8Alone) {
  EXPECT_EQ(to_lower("Send-FILE 42 \xC3\x89t\xC3\xA9"), "send-file 42 \xC3\x89t\xC3\xA9");
  EXPECT_EQ(to_upper("mcp_server \xC3\xA9"), "MCP_SERVER \xC3\xA9");
  EXPECT_EQ(to_lower(""), "");
}

TEST(Ascii, IequalsFoldsLettersOnly) {
  EXPECT_TRUE(iequals("Content-Type", "content-TYPE"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("abc", "ab"));
  EXPECT_FALSE(iequals("abc", "abd"));
  EXPECT_FALSE(iequals("\xC3\x89", "\xC3\xA9"));  // É and é: not ASCII, not folded
  EXPECT_FALSE(iequals("[", "{"));                // 0x5B and 0x7B differ by the case bit, but are no letters
  EXPECT_FALSE(iequals("@", "`"));
}

TEST(Ascii, IstartsWith) {
  EXPECT_TRUE(istarts_with("HTTP-EQUIV=refresh", "http-equiv"));
  EXPECT_TRUE(istarts_with("x", ""));
  EXPECT_TRUE(istarts_with("abc", "ABC"));
  EXPECT_FALSE(istarts_with("ab", "abc"));
  EXPECT_FALSE(istarts_with("xabc", "abc"));
}

TEST(Ascii, IfindAndIcontains) {
  EXPECT_EQ(ifind("<p><SCRIPT>", "<script"), 3u);
  EXPECT_EQ(ifind("<title>a</TITLE>", "</title"), 8u);
  EXPECT_EQ(ifind("<title><title>", "<title", 1), 7u);  // `from` skips the first
  EXPECT_EQ(ifind("abc", "abcd"), std::string_view::npos);
  EXPECT_EQ(ifind("abc", "x"), std::string_view::npos);
  EXPECT_EQ(ifind("abc", ""), 0u);
  EXPECT_EQ(ifind("abc", "", 3), 3u);
  EXPECT_EQ(ifind("abc", "", 4), std::string_view::npos);
  EXPECT_EQ(ifind("abc", "c", 9), std::string_view::npos);
  EXPECT_TRUE(icontains("I like Green TEA", "green tea"));
  EXPECT_TRUE(icontains("tea", ""));
  EXPECT_FALSE(icontains("tea", "teas"));
}

TEST(Ascii, TrimDropsTheNamedSetFromTheChosenEnds) {
  const std::string_view s = " \t\n\r\f\vx y\v\f\r\n\t ";
  EXPECT_EQ(trim(s), "x y");
  EXPECT_EQ(trim_left(s), "x y\v\f\r\n\t ");
  EXPECT_EQ(trim_right(s), " \t\n\r\f\vx y");
  test::expect_each(
      [](std::string_view text) { return trim(text); },
      {
          {"   ", ""}, {"", ""}, {"\xC2\xA0x\xC2\xA0", "\xC2\xA0x\xC2\xA0"},  // U+00A0 is no ASCII space
      });

  EXPECT_EQ(trim(" \n{}\f\v\r\n", is_markup_space), "{}\f\v");  // FF and VT are content in markup
  EXPECT_EQ(trim(" \t 5 \t\n", is_blank), "5 \t\n");            // HTTP's optional whitespace
  EXPECT_EQ(trim_left("\t more", is_blank), "more");
  EXPECT_EQ(trim_right("more\n", is_blank), "more\n");
}

static_assert(trim("  a  ") == "a");
static_assert(iequals("ABC", "abc"));
static_assert(hex_value('c') == 12);

}  // namespace
}  // namespace sigil::text::ascii
