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

constexpr FastPath kWholeNames{&RunOptions::whole_names, &sigil::parse::ParserStats::names_whole};

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
  expect_fast_path_property(kWholeNames, 0x7A619200, name_dense_reply, 4, 5);
}

// Case (b)'s shape: every tag of an `<actions>` block of reacts is looked up whole, none with whole
// markup off, and a name at a chunk's end (too few bytes at hand) by the trie.
TEST(WholeNames, EachTagOfAnActionsBlockIsLookedUpWhole) {
  EXPECT_EQ(actions_block_taken(kWholeNames), 7u);  // `<actions>`, five reacts, `</actions>`
  // The last tag's bytes end the reply: fewer than 17 after its `<`, so the trie reads its name.
  EXPECT_EQ(times_taken(kWholeNames, "Hi <react emoji=\"x\"/>"), 1u);
  EXPECT_EQ(times_taken(kWholeNames, "Hi <react e=\"x\"/>"), 0u);
}

}  // namespace
