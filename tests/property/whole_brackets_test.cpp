// Brackets read whole (parse/whole_markup.cpp: whole_bracket) keep their bytes inside the bracket's part
// while they wait for the byte after their `]` (ConstructState::bracket_bytes, up to 256 bytes), not in the
// held string. Against the byte machine (whole markup off), which holds every bracket in the held string: the
// same events, text splits and work counters, whole and in random chunkings, for replies dense in brackets
// of every length around the inline limit, followed by what makes them final or a link (`(`), at a chunk's
// end and at the reply's end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grammar_gen.h"

namespace {

using namespace sigil::testing;
using namespace sigil::testing::gen;

std::string bracket_dense_reply(ReplyGenerator& g) {
  static const std::vector<std::string> names = {"REMEMBER",        "remember", "FORGET_THIS", "CORRECT",
                                                 "SEARCH_EPISODIC", "REMEMBE",  "UNKNOWN",     "Remember"};
  static const std::vector<std::string> after = {
      "", " ", "(", "(https://x.y)", "\n", "\n\n", "é", "]", "[", "<react emoji=\"x\"/>", "`", ".", "\xff"};
  std::string out;
  const std::size_t n = 1 + g.below(12);
  for (std::size_t i = 0; i < n; ++i) {
    if (g.chance(0.3)) out += g.prose(4);
    out += '[';
    out += g.pick(names);
    out += ':';
    // Lengths from empty to past the inline limit (256 bytes, the brackets' own 12-20 included).
    const std::size_t k = g.below(100);
    const std::size_t len = k < 50 ? g.below(60) : k < 90 ? 220 + g.below(60) : g.below(400);
    for (std::size_t j = 0; j < len; ++j) out += g.chance(0.1) ? ':' : static_cast<char>('a' + g.below(26));
    out += ']';
    out += g.pick(after);
  }
  return out;
}

TEST(WholeBrackets, RepliesEqualTheHeldBrackets) {
  expect_fast_path_property({&RunOptions::whole_markup, &sigil::parse::ParserStats::brackets_inline},
                            0xB2AC4E70, bracket_dense_reply, 4, 1);
}

// Which brackets wait inline: one whose bytes are at most 256 (at the reply's end or not, a link or not),
// not one of 257, not one the byte machine reads (whole markup off, or split by a chunk).
TEST(WholeBrackets, WhichBracketsWaitInline) {
  const auto bracket = [](std::size_t bytes) {
    return "[REMEMBER:" + std::string(bytes - 11, 'x') + "]";  // `[REMEMBER:` and `]` are 11 bytes
  };
  const auto inline_count = [](const std::string& reply, bool whole, std::vector<std::size_t> sizes) {
    RunOptions o;
    o.whole_markup = whole;
    const EventLog log = run_events(reply, o, sizes);
    EXPECT_TRUE(log.problems.empty());
    return log.stats.brackets_inline;
  };
  EXPECT_EQ(inline_count("Note. " + bracket(256), true, {}), 1u);
  EXPECT_EQ(inline_count("Note. " + bracket(256) + " more", true, {}), 1u);
  EXPECT_EQ(inline_count(bracket(60) + "(link)", true, {}), 1u);
  EXPECT_EQ(inline_count("Note. " + bracket(257), true, {}), 0u);
  EXPECT_EQ(inline_count("Note. " + bracket(60), false, {}), 0u);
  EXPECT_EQ(inline_count("Note. " + bracket(60), true, {20}), 0u);  // split: read by the byte machine
  // Valid either way: the directive and its argument are the same.
  for (const std::size_t bytes : {std::size_t{12}, std::size_t{256}, std::size_t{257}}) {
    const EventLog a = run_events("Note. " + bracket(bytes), {}, {});
    RunOptions off;
    off.whole_markup = false;
    const EventLog b = run_events("Note. " + bracket(bytes), off, {});
    EXPECT_EQ(first_difference(a, b), "") << bytes;
    ASSERT_EQ(a.directives.size(), 1u) << bytes;
    EXPECT_TRUE(a.directives[0].valid) << bytes;
  }
}

}  // namespace
