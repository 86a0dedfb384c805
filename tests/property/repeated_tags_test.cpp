// Directives recognised by the last common directive's prefix (ParserOptions::repeated_tags: parse/
// tag_prefix.h, Parser::Impl::repeated_tag) against the whole-tag path that reads their name and attributes:
// the same events (text events split the same way, directives, diagnostics, silence, end) and the same work
// counters, whole and in random chunkings, for replies dense in tags that share a prefix and then differ
// after it (values with references, the other quote, escapes, line breaks, blanks or nothing; other ends,
// more attributes, a body), in any case, in code, in bodies, in say blocks, after an interruption and near
// a chunk's end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grammar_gen.h"

namespace {

using namespace sigil::testing;
using namespace sigil::testing::gen;

constexpr FastPath kRepeated{&RunOptions::repeated_tags, &sigil::parse::ParserStats::tags_repeated};

std::string repeat_dense_reply(ReplyGenerator& g) {
  // Prefixes the path keeps and some it must not confuse with them (a case, a blank or a byte apart); keys
  // whose values the grammar judges in other ways (an enum of send-file's without its required path, an
  // alias, a key in another case), with values that fail (blank, not in the enum) or pass.
  static const std::vector<std::string> heads = {"<react emoji=\"",
                                                 "<react emoji=\"",
                                                 "<react emoji='",
                                                 "<React emoji=\"",
                                                 "<react  emoji=\"",
                                                 "<react\temoji=\"",
                                                 "<react message=\"",
                                                 "<react emojis=\"",
                                                 "<reacts emoji=\"",
                                                 "<react-x emoji=\"",
                                                 "<send-file path=\"",
                                                 "<send-file caption=\"",
                                                 "<voice text=\"",
                                                 "<remember text=\"",
                                                 "<b class=\"",
                                                 "<mcp_github_search query=\"",
                                                 "<react emoji =\"",
                                                 "<say who=\"",
                                                 "<think why=\"",
                                                 "<no-reply reason=\"",
                                                 "<actions note=\"",
                                                 "<react emoji=\"\"",
                                                 "<a_rather_long_tag_name_here key=\"",
                                                 "<send-file kind=\"",
                                                 "<send-file file=\"",
                                                 "<react EMOJI=\""};
  static const std::vector<std::string> values = {"👍",
                                                  "🎉",
                                                  "x",
                                                  "",
                                                  "  ",
                                                  "a b",
                                                  "&amp;",
                                                  "it's",
                                                  "say \"hi\"",
                                                  "a\\\"b",
                                                  "line\nbreak",
                                                  "tab\tin",
                                                  "a/b",
                                                  "<",
                                                  ">",
                                                  "x&#128077;",
                                                  "averyveryveryverylongvaluethatgoesonandon",
                                                  "\r",
                                                  "✅ done",
                                                  "image",
                                                  " IMAGE ",
                                                  "not-a-kind",
                                                  "\t"};
  static const std::vector<std::string> tails = {
      "\"/>", "\"/>", "\">", "\" />",        "\"/ >", "\" message=\"1\"/>", "\">body</react>",
      "\"",   "\"/",  "'/>", "\">\n</react>"};
  static const std::vector<std::string> around = {
      "\n  ",           " ",       "text ",    "\n",    "",       "`", "```\n", "\n\n", "<actions>\n",
      "\n</actions>\n", "<voice>", "</voice>", "<say>", "</say>", "é"};
  std::string out;
  // Mostly the same head again (so that a prefix is kept and met), now and then another.
  std::string head = heads[0];
  const std::size_t n = 1 + g.below(40);
  for (std::size_t i = 0; i < n; ++i) {
    out += g.chance(0.6) ? std::string("\n  ") : g.pick(around);
    const std::size_t k = g.below(100);
    if (k < 75) {
      if (g.chance(0.15)) head = g.pick(heads);
      const std::string written = g.chance(0.05) ? g.random_case(head) : head;
      out += written + (g.chance(0.5) ? std::string("👍") : g.pick(values)) +
             (g.chance(0.5) ? std::string("\"/>") : g.pick(tails));
    } else if (k < 85) {
      out += g.directive();
    } else {
      out += g.prose(5);
    }
  }
  return out;
}

TEST(RepeatedTags, RepliesEqualTheWholeTagPath) {
  expect_fast_path_property(kRepeated, 0x5E9EA7ED, repeat_dense_reply, 4, 1);
}

// A caller that reuses its buffer: the prefix is the parser's own copy, so nothing read depends on bytes
// of an earlier chunk that the caller has overwritten.
TEST(RepeatedTags, ACallerReusingItsBufferGetsTheSameEvents) {
  std::uint64_t taken = 0;
  int failures = 0;
  for (int i = 0; i < property_cases(300) && failures < 5; ++i) {
    ReplyGenerator g(property_seed(0x5E9EA7EE) + static_cast<std::uint64_t>(i));
    const std::string reply = repeat_dense_reply(g);
    RunOptions o;
    o.reuse_buffer = true;
    const std::vector<std::size_t> sizes = random_chunking(g.rng(), reply.size(), 256);
    if (std::string d = compare_fast_path(reply, o, sizes, kRepeated, taken); !d.empty()) {
      ++failures;
      ADD_FAILURE() << d << "\n  reply: " << c_literal(reply);
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(taken, 300u);
}

// Case (b)'s shape: the first common directive keeps nothing, the second keeps its prefix, the three after
// it are recognised by it; none with whole markup off. A tag with fewer than 32 bytes from its `<` to the
// reply's end is read by the whole-tag path.
TEST(RepeatedTags, TheThirdAndLaterReactsOfABlockAreRecognisedByThePrefix) {
  EXPECT_EQ(actions_block_taken(kRepeated), 3u);
  const std::string two = "<react emoji=\"👍\"/>\n<react emoji=\"🎉\"/>\n";
  EXPECT_EQ(times_taken(kRepeated, two + "<react emoji=\"x\"/> and some text after it"), 1u);
  EXPECT_EQ(times_taken(kRepeated, two + "<react emoji=\"x\"/> short"), 0u);
  // The same prefix, then what the path leaves to the whole-tag path.
  for (const char* tail : {"&amp;\"/>   .....................", "a\\\"b\"/>  ......................",
                           "x\" message=\"1\"/> ...............", "x\" /> ..........................",
                           "x\n\"/> ..........................."})
    EXPECT_EQ(times_taken(kRepeated, two + "<react emoji=\"" + tail), 0u) << tail;
  // The other quote inside the value is a byte of it on both paths.
  EXPECT_EQ(times_taken(kRepeated, two + "<react emoji=\"it's\"/> ......................"), 1u);
}

}  // namespace
