// Tag names looked up whole (ParserOptions::whole_names: NameTable::match_whole's perfect hash) against the
// name trie walked byte by byte: the same events (text events split the same way, directives, diagnostics,
// silence, end) and the same work counters, whole and in random chunkings, for replies dense in tags of
// every registered name in any case, their prefixes and extensions, unregistered and MCP names, names long
// enough to be the trie's, close tags, and tags inside bodies (triggers).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grammar_gen.h"

namespace {

using namespace sigil::testing;
using namespace sigil::testing::gen;

// The same reply and chunking with whole names off and on; adds the names looked up whole to `taken`.
std::string compare(const std::string& reply, const RunOptions& o, const std::vector<std::size_t>& sizes,
                    std::uint64_t& taken) {
  return compare_fast_path(reply, o, sizes, &RunOptions::whole_names, &sigil::parse::ParserStats::names_whole,
                           taken);
}

std::string name_dense_reply(ReplyGenerator& g) {
  static const std::vector<std::string> names = {"react",
                                                 "voice",
                                                 "actions",
                                                 "say",
                                                 "no-reply",
                                                 "no_reply",
                                                 "think",
                                                 "thinking",
                                                 "remember",
                                                 "reac",
                                                 "reacts",
                                                 "action",
                                                 "actionsx",
                                                 "sa",
                                                 "no-repl",
                                                 "thinkin",
                                                 "unknown",
                                                 "b",
                                                 "mcp_github_search",
                                                 "mcp_github_",
                                                 "mcp_",
                                                 "mcp_context7_resolve-library-id",
                                                 "a_rather_long_tag_name",
                                                 "calculate",
                                                 "setMemory",
                                                 "send-file",
                                                 "REACT",
                                                 "Voice"};
  static const std::vector<std::string> tails = {
      "/>",   ">", " emoji=\"👍\"/>", " emoji='x'>", ">hi</react>", ">body text", " a=\"b\" c='d'/>", " />",
      "\n/>", "",  ">{\"a\":1}",     " key"};
  static const std::vector<std::string> around = {"\n  ",         " ", "text ", "\n", "",    "`", "```\n",
                                                  "[REMEMBER:x]", "é", "<",     "</", "\n\n"};
  std::string out;
  const std::size_t n = 1 + g.below(30);
  for (std::size_t i = 0; i < n; ++i) {
    out += g.pick(around);
    const std::size_t k = g.below(100);
    if (k < 60) {
      out += g.chance(0.2) ? "</" : "<";
      out += g.random_case(g.pick(names));
      out += g.pick(tails);
    } else if (k < 80) {
      out += g.directive();
    } else {
      out += g.prose(5);
    }
  }
  return out;
}

TEST(WholeNames, RepliesEqualTheTrieWalk) {
  const int cases = property_cases(1500);
  std::uint64_t taken = 0;
  const int failures = fast_path_property(
      property_seed(0x7A619200), cases,
      [](ReplyGenerator& g, int i) { return i % 4 == 3 ? g.reply() : name_dense_reply(g); },
      &RunOptions::whole_names, &sigil::parse::ParserStats::names_whole, taken);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(taken, static_cast<std::uint64_t>(cases) * 5);  // the path was taken, often
}

// Case (b)'s shape: every tag of an `<actions>` block of reacts is looked up whole, none with whole
// markup off, and a name at a chunk's end (too few bytes at hand) by the trie.
TEST(WholeNames, EachTagOfAnActionsBlockIsLookedUpWhole) {
  std::string reply = "Sure, here you go.\n<actions>\n";
  for (int k = 0; k < 5; ++k) reply += "  <react emoji=\"👍\"/>\n";
  reply += "</actions>\n\nMore text.\n";
  std::uint64_t taken = 0;
  EXPECT_EQ(compare(reply, {}, {}, taken), "");
  EXPECT_EQ(taken, 7u);  // `<actions>`, five reacts, `</actions>`
  RunOptions o;
  o.whole_markup = false;
  EXPECT_EQ(run_events(reply, o, {}).stats.names_whole, 0u);
  // The last tag's bytes end the reply: fewer than 17 after its `<`, so the trie reads its name.
  taken = 0;
  EXPECT_EQ(compare("Hi <react emoji=\"x\"/>", {}, {}, taken), "");
  EXPECT_EQ(taken, 1u);
  taken = 0;
  EXPECT_EQ(compare("Hi <react e=\"x\"/>", {}, {}, taken), "");
  EXPECT_EQ(taken, 0u);
}

}  // namespace
