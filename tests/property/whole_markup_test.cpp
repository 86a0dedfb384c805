// Stage 2's whole-markup path (parse/whole_markup.cpp) against the byte machine: for the same reply, with
// ParserOptions::whole_markup on and off, the parser must give the same events (text events split the same
// way, directives, diagnostics, silence, end) and the same work counters, fed whole, at every cut into two
// chunks, and in random chunkings. The inputs are markup the fast path takes and its near misses (a space
// before `/>`, escapes, line breaks, limits, code, unregistered names), plus random replies from the
// grammar generator.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grammar_gen.h"

namespace {

using namespace sigil::testing;
using namespace sigil::testing::gen;

const std::vector<std::string>& corpus() {
  static const std::vector<std::string> inputs = {
      "<react emoji=\"👍\"/>",
      "Hi <react emoji=\"👍\"/> there.",
      "<actions>\n  <react emoji=\"🎉\"/>\n  <react emoji='❤️'/>\n</actions>\n\nDone.",
      "<actions><react emoji=\"x\"/></actions>",
      "<ACTIONS>\n<React EMOJI=\"x\"/>\n</Actions>",
      "<react emoji=\"x\" />",
      "<react emoji=\"x\"  />",
      "<react  emoji=\"x\"/>",
      "<react\temoji=\"x\"/>",
      "<react emoji = \"x\"/>",
      "<react emoji=x/>",
      "<react emoji=\"x\"foo=\"y\"/>",
      "<react emoji=\"a&amp;b&#x1F44D;\"/>",
      "<react emoji=\"a\\\"b\"/>",
      "<react emoji=\"a\nb\"/>",
      "<react emoji=\"a\r\nb\"/>",
      "<react\nemoji=\"x\"/>",
      "<react emoji=\"x\">",
      "<react emoji>",
      "<react emoji/>",
      "<react/>",
      "<react>",
      "I can react with <react>.",
      "<react emoji=\"<b>[REMEMBER:x]\"/>",
      "<react emoji=\"x\" [REMEMBER:y]/>",
      "<reactx emoji=\"x\"/>",
      "<rea emoji=\"x\"/>",
      "<voice>Hello there</voice> after",
      "<voice>Hello\nthere</voice>",
      "<voice><voice>twice</voice>",
      "</actions> orphan </react> and </voice >",
      "</actions",
      "<no-reply/>",
      "<no-reply></no-reply>",
      "NO_REPLY\n<react emoji=\"x\"/>",
      "<think>\nhidden <react emoji=\"x\"/>\n</think>\nshown",
      "text\n<think>\nhidden\n</think>\nshown",
      "text\n<think> on the line </think> after",
      "text <think>inline</think>",
      "<say>spoken <react emoji=\"x\"/></say> and </say>",
      "`<react emoji=\"x\"/>` in code",
      "```\n<react emoji=\"x\"/>\n```\n<react emoji=\"y\"/>",
      "a `tick <react emoji=\"x\"/>",
      "**<react emoji=\"x\"/>** bold",
      "<mcp_github_create_issue>{\"title\":\"a\"}</mcp_github_create_issue>",
      "<actions>\n<unknown-tag a=\"b\"/>\n<react emoji=\"x\"/>\n</actions>",
      "<setMemory>{\"key\":\"a\",\"value\":\"b\"}</setMemory>",
      "<!-- comment <react emoji=\"x\"/> --> after",
      "[REMEMBER:User likes tea]",
      "[REMEMBER:User likes tea] and more",
      "[REMEMBER:User likes tea](https://example.com)",
      "[REMEMBER:a [b] c] nested",
      "[REMEMBER:a <b> c]",
      "[REMEMBER:two\nlines]",
      "[remember:lower case]",
      "[REMEMBER:]",
      "[REMEMBER]",
      "[REMEMBERX:y]",
      "[REMEMBER:x]é multi-byte after",
      "[REMEMBER:x]\xff invalid after",
      "See [Lisboa Card](https://www.visitlisboa.com) and [REMEMBER:trip in May]",
      "`[REMEMBER:in code]` and [REMEMBER:not]",
      "<react emoji=\"x\"/>[REMEMBER:y]<react emoji=\"z\"/>",
      // Bodies: runs held whole, and the triggers read in place at their `<` (2.8).
      "<voice>Hello there <actions><react emoji=\"x\"/></actions> after",
      "<voice>say this <react emoji=\"x\"/> and more",
      "<voice>say this <react emoji=\"x\" /> and <react emoji=x/> more",
      "<voice> <voice note=\"a\">twice</voice>",
      "<voice>text <voice>again</voice>",
      "<voice>text <VOICE>again</voice>",
      "<voice>line one\nline two <react emoji=\"x\"/></voice>",
      "<voice>a `code <react emoji=\"x\"/>` b <react emoji=\"y\"/></voice>",
      "<voice>a ``code `<react emoji=\"x\"/>`` b</voice>",
      "<voice>before\n```\ncode\n```\n</voice>",
      "<voice>\n```",
      "<VOICE>\n~~~ x",
      "<voice>a\n``b`` <react emoji=\"x\"/>\n~~c~~ d</voice>",
      "<voice>before\n  ~~~ tilde fence\n</voice>",
      "<voice>before\n> ```\n</voice>",
      "<voice>before\n- <react emoji=\"x\"/>\n</voice>",
      "<voice>text <think>x</think> more</voice>",
      "<voice>text\n<think>\nhidden\n</think>\nshown",
      "<voice>text\n  <think>  \nhidden\n</think>\nshown",
      "<voice>text </actions> more",
      "<voice>text </voice > after",
      "<voice>text </VOICE> after",
      "<voice>text <unknown a=\"b\"> more</voice>",
      "<voice>text <react emoji=\"x\" more</voice>",
      "<voice>text <react emoji=\"a\nb\"/> more</voice>",
      "<voice>text <react\nemoji=\"x\"/> more</voice>",
      "<voice>text [REMEMBER:y] more</voice>",
      "<voice>text <!-- c --> more</voice>",
      "<voice>text <mcp_github_create_issue>{}</mcp_github_create_issue>",
      "<voice>caf\xc3\xa9 \xe2\x80\x94 <react emoji=\"\xf0\x9f\x91\x8d\"/> na\xc3\xafve</voice>",
      "<voice>bad \xff byte <react emoji=\"x\"/></voice>",
      "<voice>a &amp; b</voice> <voice>c\r\nd</voice>",
      "<remember>one line\nsecond</remember>",
      "<remember>one line <react emoji=\"x\"/></remember>",
      "<file>\n/tmp/a b.txt\n</file>",
      "<file>/tmp/x\nsecond line</file>",
      "<file>/tmp/x\n<react emoji=\"x\"/></file>",
      "<file>  /tmp/x  \n  </file>",
      "<file><file>\n<file>E",
      "<file><file>\n<file></file> after",
      "<publishWebPage>\n<html><b>x</b> <react emoji=\"y\"/> [REMEMBER:z]\n```\n</html>\n</publishWebPage> "
      "after",
      "<publishWebPage><p>never closed <react emoji=\"y\"/>",
      "<actions><voice>a</actions><voice>b <actions>c",
  };
  return inputs;
}

// Bodies that meet their limit around a trigger or a line break (remember: 4 KiB, single line).
std::vector<std::string> limit_inputs() {
  std::vector<std::string> out;
  for (std::size_t d = 0; d <= 24; ++d) {
    const std::string body(4096 - 12 + d, 'a');
    out.push_back("<remember>" + body + "<react emoji=\"x\"/> after");
    out.push_back("<remember>" + body + "</remember> after");
    out.push_back("<remember>" + body + "\nnext");
  }
  // A markup body (256 KiB) a few bytes either side of its limit.
  for (std::size_t d : {0, 11, 12, 13, 20})
    out.push_back("<publishWebPage>" + std::string(256 * 1024 - 12 + d, 'b') + "<b></publishWebPage>");
  return out;
}

// The same reply and chunking, fast path on and off.
std::string compare(const std::string& reply, RunOptions o, const std::vector<std::size_t>& sizes) {
  o.whole_markup = false;
  const EventLog general = run_events(reply, o, sizes);
  o.whole_markup = true;
  const EventLog fast = run_events(reply, o, sizes);
  if (!fast.problems.empty()) return fast.problems.front();
  if (std::string d = first_difference(general, fast); !d.empty()) return d;
  if (general.text_events != fast.text_events) return "text events split differently";
  return stats_difference(general.stats, fast.stats);  // the fast path must not change one counter either
}

TEST(WholeMarkup, CorpusWholeAndAtEveryCut) {
  for (const std::string& reply : corpus()) {
    for (bool say : {false, true}) {
      RunOptions o;
      o.say = say;
      std::string d = compare(reply, o, {});
      for (std::size_t cut = 0; d.empty() && cut <= reply.size(); ++cut)
        if (d = compare(reply, o, {cut, reply.size() - cut}); !d.empty())
          d = "cut at " + std::to_string(cut) + ": " + d;
      EXPECT_EQ(d, "") << "say=" << say << " reply: " << c_literal(reply);
    }
  }
}

TEST(WholeMarkup, BodiesAtTheirLimit) {
  for (const std::string& reply : limit_inputs()) {
    std::vector<std::size_t> sizes;
    for (std::size_t cut : {std::size_t{0}, reply.size() / 2, reply.size() - 20, reply.size() - 7}) {
      sizes = {cut, reply.size() - cut};
      EXPECT_EQ(compare(reply, {}, sizes), "")
          << "cut at " << cut << ", reply of " << reply.size() << " bytes";
    }
    EXPECT_EQ(compare(reply, {}, {}), "") << "whole, reply of " << reply.size() << " bytes";
    EXPECT_EQ(compare(reply, {}, fixed_chunking(reply.size(), 61)), "") << "reply of " << reply.size();
  }
}

TEST(WholeMarkup, CorpusInSmallChunks) {
  for (const std::string& reply : corpus())
    for (std::size_t n : {1, 2, 3, 5, 7, 16})
      EXPECT_EQ(compare(reply, {}, fixed_chunking(reply.size(), n)), "")
          << "chunks of " << n << ", reply: " << c_literal(reply);
}

// The corpus strung together, so several fast-path constructs meet one parser's state.
TEST(WholeMarkup, CorpusConcatenated) {
  std::string reply;
  for (const std::string& r : corpus()) reply += r + "\n\n";
  RunOptions o;
  EXPECT_EQ(compare(reply, o, {}), "");
  o.say = true;
  EXPECT_EQ(compare(reply, o, {}), "");
}

TEST(WholeMarkup, RandomReplies) {
  const std::uint64_t base = property_seed(0x3A01E000);
  const int cases = property_cases(3000) / 3;
  int failures = 0;
  for (int i = 0; i < cases && failures < 5; ++i) {
    const std::uint64_t seed = base + static_cast<std::uint64_t>(i);
    ReplyGenerator g(seed);
    const std::string reply = g.reply();
    RunOptions o;
    o.say = g.chance(0.33);
    o.cut_off = g.chance(0.2);
    for (const auto& sizes : {std::vector<std::size_t>{}, random_chunking(g.rng(), reply.size(), 64)}) {
      if (std::string d = compare(reply, o, sizes); !d.empty()) {
        ++failures;
        ADD_FAILURE() << "seed " << seed << " say=" << o.say << " chunking " << describe_chunks(sizes) << ": "
                      << d << "\n  reply: " << c_literal(reply);
        break;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

// Replies dense in bodies that triggers abandon (2.8), as case (d)'s: openers of every body kind, prose
// between them, sometimes a line break, a backtick, a `[`, a close tag or a broken tag inside a body.
std::string abandoned_bodies(ReplyGenerator& g) {
  static const char* const kOpeners[] = {"<voice>",
                                         "<actions>",
                                         "<remember>",
                                         "<publishWebPage>",
                                         "<file>",
                                         "<VOICE>",
                                         "<react emoji=\"x\"/>",
                                         "</voice>",
                                         "<voice note=\"a\">"};
  static const char* const kInside[] = {
      "\n", "`", "[", "[REMEMBER:x]", "</voice>", "<b>", "<react emoji=", "  ", "\xff", "é"};
  std::string out;
  const std::size_t items = 2 + g.below(12);
  for (std::size_t k = 0; k < items; ++k) {
    out += kOpeners[g.below(std::size(kOpeners))];
    out += g.prose(10);
    if (g.chance(0.3)) out += kInside[g.below(std::size(kInside))];
    if (g.chance(0.5)) out += g.prose(6);
  }
  return out;
}

// Stage 2 holds a body and its open tag in place (parser_impl.h, held_size()): views of the fed chunk that
// must be copied before feed() returns. Fed from one buffer that the caller overwrites after every feed, the
// fast path must still give the byte machine's events, text splits and counters: a view kept past its feed
// would release the overwritten bytes. Fails too unless bodies were held in place, and copied, often.
TEST(WholeMarkup, BodiesHeldInPlaceSurviveACallerReusingItsBuffer) {
  std::uint64_t in_place = 0, settled = 0;
  const auto check = [&](const std::string& reply, RunOptions o, const std::vector<std::size_t>& sizes) {
    o.whole_markup = false;
    const EventLog general = run_events(reply, o, sizes);
    o.whole_markup = true;
    o.reuse_buffer = true;
    const EventLog fast = run_events(reply, o, sizes);
    in_place += fast.stats.held_in_place;
    settled += fast.stats.held_settled;
    if (!fast.problems.empty()) return fast.problems.front();
    if (std::string d = first_difference(general, fast); !d.empty()) return d;
    if (general.text_events != fast.text_events) return std::string("text events split differently");
    return stats_difference(general.stats, fast.stats);
  };
  for (const std::string& reply : corpus())
    for (std::size_t n : {1, 7, 29})
      EXPECT_EQ(check(reply, {}, fixed_chunking(reply.size(), n)), "")
          << "chunks of " << n << ": " << c_literal(reply);
  const std::uint64_t base = property_seed(0x5E1D0000);
  const int cases = property_cases(1500);
  int failures = 0;
  for (int i = 0; i < cases && failures < 5; ++i) {
    const std::uint64_t seed = base + static_cast<std::uint64_t>(i);
    ReplyGenerator g(seed);
    const std::string reply = i % 4 == 3 ? g.reply() : abandoned_bodies(g);
    RunOptions o;
    o.say = g.chance(0.25);
    o.cut_off = g.chance(0.1);
    for (const auto& sizes : {std::vector<std::size_t>{}, random_chunking(g.rng(), reply.size(), 48),
                              random_chunking(g.rng(), reply.size(), 300)}) {
      if (std::string d = check(reply, o, sizes); !d.empty()) {
        ++failures;
        ADD_FAILURE() << "seed " << seed << " chunking " << describe_chunks(sizes) << ": " << d
                      << "\n  reply: " << c_literal(reply);
        break;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(in_place, static_cast<std::uint64_t>(cases) * 20);
  EXPECT_GT(settled, static_cast<std::uint64_t>(cases));
}

// Case (d)'s shape: a `<voice>` body abandoned at the next `<actions>`. Fed whole, no body byte is copied;
// cut inside one body, exactly that body's bytes before the cut are copied, once (the rest is appended to
// them as it comes), and the events are the same. A cut in the open tag, or right after it, leaves the tag
// to the byte machine or to its own copy (nothing held in place, nothing settled).
TEST(WholeMarkup, AnAbandonedBodyIsCopiedOnlyWhenItStraddlesAChunk) {
  const std::string voice = "<voice>the body goes on and never reaches its close tag ";
  std::string reply;
  for (int k = 0; k < 6; ++k) reply += "<actions>prose between them " + voice;
  reply += "<actions>";
  const EventLog whole = run_events(reply, {}, {});
  EXPECT_EQ(whole.stats.held_in_place, 6 * voice.size());
  EXPECT_EQ(whole.stats.held_settled, 0u);
  const std::size_t third = reply.find(voice, reply.find(voice, reply.find(voice) + 1) + 1);
  for (std::size_t into :
       {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{20}, voice.size() - 1}) {
    const std::size_t cut = third + into;
    const std::size_t held = into > 7 ? into : 0;  // `<voice>` itself ends the first piece at 7
    const EventLog cut_log = run_events(reply, {}, {cut, reply.size() - cut});
    EXPECT_EQ(cut_log.stats.held_settled, held) << "cut " << into << " bytes into the third body";
    EXPECT_EQ(cut_log.stats.held_in_place, 5 * voice.size() + held) << "cut " << into;
    EXPECT_EQ(first_difference(whole, cut_log), "") << "cut " << into;
  }
}

// A `[` before a name no registered bracket name begins with is text at the byte where the name index rules
// it out (not_a_bracket): the same events, text splits and counters as the byte machine's, whole and at
// every cut, and taken exactly where it may be (not before a blank, not in code, not for a registered name).
TEST(WholeMarkup, AnUnregisteredBracketNameIsTextAtOnce) {
  const std::vector<std::pair<std::string, std::uint64_t>> cases = {
      {"See [Lisboa Card](https://example.com) and more.", 1},
      {"[Lx]", 1},
      {"[CX", 1},
      {"x [cx] y [Lisboa][Lisboa]z", 3},
      {"[L ok", 0},
      {"[L\nok", 0},
      {"[REMEMBER x]", 0},
      {"[REMEMBER:x] [Zed]", 1},
      {"`[Lisboa]` code", 0},
      {"[ Lisboa]", 0},
  };
  for (const auto& [reply, taken] : cases) {
    EXPECT_EQ(run_events(reply, {}, {}).stats.brackets_not_named, taken) << reply;
    for (std::size_t cut = 0; cut <= reply.size(); ++cut)
      EXPECT_EQ(compare(reply, {}, {cut, reply.size() - cut}), "") << "cut at " << cut << ": " << reply;
  }
}

}  // namespace
