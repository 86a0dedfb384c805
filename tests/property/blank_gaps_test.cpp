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

// The same reply and chunking with blank gaps off and on; adds the gaps taken to `taken`.
std::string compare(const std::string& reply, const RunOptions& o, const std::vector<std::size_t>& sizes,
                    std::uint64_t& taken) {
  return compare_fast_path(reply, o, sizes, &RunOptions::blank_gaps, &sigil::parse::ParserStats::blank_gaps,
                           taken);
}

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
  const int cases = property_cases(1500);
  std::uint64_t taken = 0;
  const int failures = fast_path_property(
      property_seed(0xB1A4C000), cases,
      [](ReplyGenerator& g, int i) { return i % 5 == 4 ? g.reply() : dense_reply(g); },
      &RunOptions::blank_gaps, &sigil::parse::ParserStats::blank_gaps, taken);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(taken, static_cast<std::uint64_t>(cases) * 2);  // the path was taken, often
}

// Case (b)'s shape: every run between two tags is taken, and nothing else.
TEST(BlankGaps, EachGapOfAnActionsBlockIsTakenOnce) {
  std::string reply = "Sure, here you go.\n<actions>\n";
  for (int k = 0; k < 5; ++k) reply += "  <react emoji=\"👍\"/>\n";
  reply += "</actions>\n\nMore text.\n";
  std::uint64_t taken = 0;
  EXPECT_EQ(compare(reply, {}, {}, taken), "");
  // After `<actions>` and after each react: "\n  " five times, then "\n" before `</actions>`; the blank
  // lines after `</actions>` run into text, which the ordinary path takes with them.
  EXPECT_EQ(taken, 6u);
  taken = 0;
  RunOptions o;
  o.whole_markup = false;  // the byte machine reads every tag: no markup read whole, no gap taken
  EXPECT_EQ(run_events(reply, o, {}).stats.blank_gaps, 0u);
  // A gap of 64 blanks or more goes the general way (the judge is told about such runs).
  std::string wide = "<react emoji=\"x\"/>" + std::string(63, ' ') + "<react emoji=\"y\"/>";
  EXPECT_EQ(run_events(wide, {}, {}).stats.blank_gaps, 1u);
  wide = "<react emoji=\"x\"/>" + std::string(64, ' ') + "<react emoji=\"y\"/>";
  EXPECT_EQ(run_events(wide, {}, {}).stats.blank_gaps, 0u);
  EXPECT_EQ(compare(wide, {}, {}, taken), "");
}

}  // namespace
