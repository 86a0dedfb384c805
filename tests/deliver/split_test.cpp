#include "sigil/deliver/split.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sigil/text/utf8.h"

namespace sigil::deliver {
namespace {

struct UnitsCase {
  std::string text;
  std::size_t bytes, utf16, code_points;
};

TEST(DeliverTextUnits, CountsEachUnit) {
  const std::vector<UnitsCase> cases = {
      {"", 0, 0, 0},
      {"abc", 3, 3, 3},
      {"\xC3\xA9", 2, 1, 1},                          // é
      {"\xE2\x82\xAC", 3, 1, 1},                      // €
      {"\xF0\x9F\x98\x80", 4, 2, 1},                  // 😀
      {"\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", 8, 4, 2},  // 👍🏽
      {"a\xFF"
       "b",
       3, 3, 3},              // ill-formed: one U+FFFD
      {"\xE2\x82", 2, 1, 1},  // truncated sequence: one U+FFFD
  };
  for (const auto& c : cases) {
    EXPECT_EQ(text_units(c.text, TextUnit::Bytes), c.bytes) << c.text;
    EXPECT_EQ(text_units(c.text, TextUnit::Utf16), c.utf16) << c.text;
    EXPECT_EQ(text_units(c.text, TextUnit::CodePoints), c.code_points) << c.text;
  }
}

struct SplitCase {
  const char* name;
  std::string text;
  std::size_t limit;
  TextUnit unit;
  std::vector<std::string> messages;
};

TEST(DeliverSplit, Table) {
  const std::string thumbs = "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD";  // 👍🏽: two code points, one grapheme
  const std::string grin = "\xF0\x9F\x98\x80";                    // 😀
  const std::string e = "\xC3\xA9";                               // é
  const std::vector<SplitCase> cases = {
      {"fits", "Hello there", 11, TextUnit::Bytes, {"Hello there"}},
      {"no limit", std::string(10000, 'x'), 0, TextUnit::Bytes, {std::string(10000, 'x')}},
      {"trimmed", "  \n Hello \n\n", 100, TextUnit::Bytes, {"Hello"}},
      {"whitespace only", " \n\t ", 100, TextUnit::Bytes, {}},
      {"paragraph first", "aaaa bbbb\n\ncccc dddd", 15, TextUnit::Bytes, {"aaaa bbbb", "cccc dddd"}},
      {"line before space", "aaaa bbbb\ncccc dddd", 15, TextUnit::Bytes, {"aaaa bbbb", "cccc dddd"}},
      {"space beats a short line", "aaaa\nbbbb cccc dddd", 12, TextUnit::Bytes, {"aaaa\nbbbb", "cccc dddd"}},
      {"sentence before space", "Hi there. You are here", 16, TextUnit::Bytes, {"Hi there.", "You are here"}},
      {"cjk full stop",
       "\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82\xE5\x86\x8D\xE8\xA7\x81",
       4,
       TextUnit::CodePoints,
       {"\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82", "\xE5\x86\x8D\xE8\xA7\x81"}},
      {"word longer than the limit", "abcdefghij", 4, TextUnit::Bytes, {"abcd", "efgh", "ij"}},
      {"long word after a short one", "a bcdefghijkl", 6, TextUnit::Bytes, {"a", "bcdefg", "hijkl"}},
      {"utf-8 never cut inside a sequence", e + e + e + e + e, 5, TextUnit::Bytes, {e + e, e + e, e}},
      {"utf-16 counts an emoji as two", grin + grin + grin, 3, TextUnit::Utf16, {grin, grin, grin}},
      {"utf-16 emoji after ascii", "ab" + grin + "cd", 3, TextUnit::Utf16, {"ab", grin + "c", "d"}},
      {"code points count an emoji as one", grin + grin + grin, 2, TextUnit::CodePoints, {grin + grin, grin}},
      {"grapheme kept whole", thumbs + thumbs, 3, TextUnit::CodePoints, {thumbs, thumbs}},
      {"grapheme kept whole in utf-16", thumbs + thumbs, 6, TextUnit::Utf16, {thumbs, thumbs}},
      {"limit below one code point still progresses", grin + "a", 1, TextUnit::Utf16, {grin, "a"}},
      {"fence closed and reopened",
       "Intro:\n```python\nx = 1\ny = 2\nz = 3\n```\nDone.",
       30,
       TextUnit::Bytes,
       {"Intro:\n```python\nx = 1\n```", "```python\ny = 2\nz = 3\n```", "Done."}},
      {"cut before the fence when it is enough",
       "Some intro text here.\n\n```\ncode line\n```",
       30,
       TextUnit::Bytes,
       {"Some intro text here.", "```\ncode line\n```"}},
      {"hard cut inside a fence closes it",
       "```\n" + std::string(20, 'x') + "\n```",
       20,
       TextUnit::Bytes,
       {"```\n" + std::string(12, 'x') + "\n```", "```\n" + std::string(8, 'x') + "\n```"}},
      {"tilde fence",
       "~~~~\nab\ncd\nef\ngh\nij\n~~~~",
       20,
       TextUnit::Bytes,
       {"~~~~\nab\ncd\nef\n~~~~", "~~~~\ngh\nij\n~~~~"}},
      {"no space inside inline code",
       "see `a b c d e` now",
       12,
       TextUnit::Bytes,
       {"see", "`a b c d e`", "now"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(split_text(c.text, c.limit, c.unit), c.messages) << c.name;
  }
}

TEST(DeliverSplit, SplitOnceReportsTheCut) {
  auto none = split_once("short", 10, TextUnit::Bytes);
  EXPECT_FALSE(none.has_value());
  auto hard = split_once("abcdefghij", 4, TextUnit::Bytes);
  ASSERT_TRUE(hard.has_value());
  EXPECT_TRUE(hard->hard);
  EXPECT_EQ(hard->consumed, 4U);
  auto fence = split_once("Intro:\n```python\nx = 1\ny = 2\nz = 3\n```\nDone.", 30, TextUnit::Bytes);
  ASSERT_TRUE(fence.has_value());
  EXPECT_TRUE(fence->inside_fence);
  EXPECT_FALSE(fence->hard);
  EXPECT_EQ(fence->reopen, "```python\n");
}

std::string without_space(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c != ' ' && c != '\n' && c != '\t') out.push_back(c);
  }
  return out;
}

// Random texts of words, multi-byte characters, emoji and line breaks (and fences when asked): every
// message fits, is well-formed UTF-8 and not empty; without fences nothing but whitespace is lost.
void check_random(bool fences) {
  const std::vector<std::string> pieces = {"word",
                                           "longerword",
                                           "x",
                                           " ",
                                           " ",
                                           " ",
                                           "\n",
                                           "\n\n",
                                           ". ",
                                           "\xC3\xA9t\xC3\xA9",
                                           "\xE2\x82\xAC",
                                           "\xF0\x9F\x98\x80",
                                           "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
                                           "supercalifragilistic",
                                           "`code span`"};
  std::mt19937 rng(fences ? 7 : 3);
  for (int round = 0; round < 400; ++round) {
    std::string text;
    const int n = std::uniform_int_distribution<int>(1, 80)(rng);
    for (int i = 0; i < n; ++i) {
      if (fences && std::uniform_int_distribution<int>(0, 15)(rng) == 0) {
        text += "\n```js\nlet a = 1;\nlet b = 2;\nlet c = 3;\n```\n";
      } else {
        text += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
      }
    }
    const auto unit = static_cast<TextUnit>(std::uniform_int_distribution<int>(0, 2)(rng));
    const std::size_t limit = std::uniform_int_distribution<std::size_t>(12, 64)(rng);
    const auto messages = split_text(text, limit, unit);
    std::string joined;
    for (const auto& m : messages) {
      EXPECT_FALSE(m.empty());
      EXPECT_LE(text_units(m, unit), limit) << m;
      EXPECT_TRUE(text::is_valid_utf8(m)) << m;
      EXPECT_EQ(m.find_first_not_of(" \n\t"), 0U) << m;
      joined += m;
    }
    if (!fences) {
      EXPECT_EQ(without_space(joined), without_space(text)) << text;
    }
  }
}

TEST(DeliverSplit, RandomTextsFitAndKeepContent) { check_random(false); }
TEST(DeliverSplit, RandomTextsWithFencesFit) { check_random(true); }

}  // namespace
}  // namespace sigil::deliver
