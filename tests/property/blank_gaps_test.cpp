// The blanks between markup read whole and the next opener (Parser::Impl::blank_gap, ParserOptions::
// blank_gaps) against the ordinary-text path they take otherwise: the same events (text events split the
// same way, directives, diagnostics, silence, end) and the same work counters, whole and in random
// chunkings, for replies dense in directives with every kind of whitespace between them, and the things
// whose state that whitespace meets: fences, inline code, indented lines, sentinel lines, emphasis around
// directives, list markers, CRs, say blocks, interruptions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grammar_gen.h"

namespace {

using namespace sigil::testing;
using namespace sigil::testing::gen;

constexpr FastPath kBlankGaps{&RunOptions::blank_gaps, &sigil::parse::ParserStats::blank_gaps};

// Directives and what surrounds them in case (b), joined by random whitespace.
std::string dense_reply(ReplyGenerator& g) {
  static const std::vector<std::string> blanks = {"\n  ", "\n",     " ",       "  ",      "\t",
                                                  "\n\n", "\n\n  ", "\n    ",  "",        " \n",
                                                  "\n\t", "\r\n  ", "\n \n  ", "   \n   "};
  static const std::vector<std::string> simple = {"<react emoji=\"👍\"/>",
                                                  "<react emoji='🎉'/>",
                                                  "<actions>",
                                                  "</actions>",
                                                  "<react emoji=\"x\"></react>",
                                                  "<react/>",
                                                  "<voice>hi</voice>",
                                                  "[REMEMBER:a]",
                                                  "<no-reply/>",
                                                  "<think>x</think>",
                                                  "</react>",
                                                  "<unknown a=\"b\"/>",
                                                  "<say>",
                                                  "</say>"};
  static const std::vector<std::string> around = {
      "NO_REPLY", "```",   "```js",  "~~~", "`", "``",           "**", "_", "- ",  "1. ", "> ",
      "text",     "Done.", "`code`", ".",   "é", "HEARTBEAT_OK", "[",  "<", "<b>", "\r"};
  std::string out;
  const std::size_t n = 1 + g.below(40);
  for (std::size_t i = 0; i < n; ++i) {
    out += g.pick(blanks);
    const std::size_t k = g.below(100);
    if (k < 55)
      out += g.pick(simple);
    else if (k < 65)
      out += g.directive();
    else if (k < 90)
      out += g.pick(around);
    else
      out += g.prose(4);
  }
  return out;
}

TEST(BlankGaps, DenseRepliesEqualTheOrdinaryPath) {
  expect_fast_path_property(kBlankGaps, 0xB1A4C000, dense_reply, 5, 2);
}

// Case (b)'s shape: every run between two tags is taken, and nothing else.
TEST(BlankGaps, EachGapOfAnActionsBlockIsTakenOnce) {
  // After `<actions>` and after each react: "\n  " five times, then "\n" before `</actions>`; the blank
  // lines after `</actions>` run into text, which the ordinary path takes with them.
  EXPECT_EQ(actions_block_taken(kBlankGaps), 6u);
  // A gap of 64 blanks or more goes the general way (the judge is told about such runs).
  std::string wide = "<react emoji=\"x\"/>" + std::string(63, ' ') + "<react emoji=\"y\"/>";
  EXPECT_EQ(run_events(wide, {}, {}).stats.blank_gaps, 1u);
  wide = "<react emoji=\"x\"/>" + std::string(64, ' ') + "<react emoji=\"y\"/>";
  EXPECT_EQ(run_events(wide, {}, {}).stats.blank_gaps, 0u);
  EXPECT_EQ(times_taken(kBlankGaps, wide), 0u);
}

}  // namespace
