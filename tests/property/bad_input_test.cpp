// Bad input: no crash, bounded memory (Parser::stats().max_held), text that stays valid UTF-8, and a
// diagnostic wherever something was dropped or refused (abandoned, tag-too-long, body-too-long,
// bracket-too-long, comment-too-long, over-limit, cut-off, ...). Sizes: random bytes 1 MiB, a 10 MiB
// attribute, 1 MiB of `[`, 1 MiB bodies over their limits, 100k directives, and a 100 MiB reply of prose in
// 64 KiB chunks (16 MiB in builds with assertions: the ASan preset is a Debug build).
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "grammar_gen.h"
#include "sigil/text/utf8.h"

namespace {

using namespace sigil;
using namespace sigil::testing;
using gen::CountingSink;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

const parse::CompiledGrammar& grammar() {
  static const parse::CompiledGrammar g(conformance_registry());
  return g;
}

struct Counted {
  CountingSink sink;
  parse::ParserStats stats;
  double secs = 0;
};

// Feeds `input` in the given chunk sizes (empty: whole) to a parser whose sink only counts.
Counted count_sizes(std::string_view input, const std::vector<std::size_t>& sizes,
                    parse::ParserOptions po = {}) {
  Counted c;
  const auto start = std::chrono::steady_clock::now();
  parse::Parser parser(grammar(), c.sink, po);
  std::size_t at = 0;
  for (std::size_t n : sizes) {
    parser.feed(input.substr(std::min(at, input.size()), n));
    at += n;
  }
  if (at < input.size()) parser.feed(input.substr(at));
  parser.finish();
  c.secs = gen::seconds_since(start);
  c.stats = parser.stats();
  return c;
}

std::uint64_t fnv(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3u;
  return h;
}

// Two runs of the same reply agree on everything a counting sink sees (11.2).
void expect_same_counts(const Counted& a, const Counted& b, const std::string& what) {
  EXPECT_EQ(a.sink.visible_bytes, b.sink.visible_bytes) << what;
  EXPECT_EQ(a.sink.visible_hash, b.sink.visible_hash) << what;
  EXPECT_EQ(a.sink.hidden_bytes, b.sink.hidden_bytes) << what;
  EXPECT_EQ(a.sink.hidden_hash, b.sink.hidden_hash) << what;
  EXPECT_EQ(a.sink.directives, b.sink.directives) << what;
  EXPECT_EQ(a.sink.valid_directives, b.sink.valid_directives) << what;
  EXPECT_EQ(a.sink.diagnostics, b.sink.diagnostics) << what;
  EXPECT_EQ(a.sink.errors, b.sink.errors) << what;
  EXPECT_EQ(a.sink.silent, b.sink.silent) << what;
}

Counted count(std::string_view input, std::size_t chunk, parse::ParserOptions po = {},
              parse::FinishReason reason = parse::FinishReason::Stop) {
  Counted c;
  const auto start = std::chrono::steady_clock::now();
  parse::Parser parser(grammar(), c.sink, po);
  const std::size_t step = chunk == 0 ? std::max<std::size_t>(input.size(), 1) : chunk;
  for (std::size_t i = 0; i < input.size(); i += step) parser.feed(input.substr(i, step));
  parser.finish(reason);
  c.secs = gen::seconds_since(start);
  c.stats = parser.stats();
  return c;
}

bool has_diag(const gen::EventLog& log, std::string_view code) {
  for (const auto& d : log.diagnostics)
    if (d.code == code) return true;
  return false;
}

std::string codes(const gen::EventLog& log) {
  std::string s;
  for (const auto& d : log.diagnostics) s += d.code + " ";
  return s;
}

// Whole and in two chunkings: the same events, no protocol problem. Returns the whole run.
gen::EventLog run_all_ways(const std::string& reply, const RunOptions& o = {}, std::size_t max_chunk = 64) {
  std::mt19937_64 rng(reply.size());
  gen::EventLog whole = gen::run_events(reply, o, {});
  EXPECT_TRUE(whole.problems.empty()) << whole.problems.front();
  for (const auto& sizes : {gen::random_chunking(rng, reply.size(), max_chunk),
                            gen::fixed_chunking(reply.size(), reply.size() <= 64 * kKiB ? 1 : 4096)}) {
    const gen::EventLog log = gen::run_events(reply, o, sizes);
    EXPECT_TRUE(log.problems.empty()) << log.problems.front();
    const std::string d = gen::first_difference(whole, log);
    EXPECT_EQ(d, "") << "chunking " << gen::describe_chunks(sizes) << " of " << gen::c_literal(reply, 300);
  }
  return whole;
}

// ------------------------------------------------------------------------------------------------ bytes

TEST(BadInput, RandomBytesOneMebibyte) {
  static const std::vector<std::string> tokens = {
      "<voice>",
      "</voice>",
      "[REMEMBER:",
      "]",
      "<react emoji=\"",
      "\"",
      "/>",
      "<!--",
      "-->",
      "<setMemory>{",
      "}",
      "</setMemory>",
      "<think>\n",
      "</think>",
      "\n",
      "<actions>",
      "```\n",
      "`",
      "<mcp_github_x>",
      "[",
      "<",
      "<say>",
      "</say>",
      "NO_REPLY",
      "<no-reply/>",
      "\xff",
      "\xe2\x82",
      " ",
      "x",
      "\r\n",
      "<![CDATA[",
  };
  for (std::uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE(seed == 1 ? "random bytes" : "random markup tokens and bytes");
    std::mt19937_64 rng(seed);
    std::string input;
    input.reserve(1 * kMiB + 16);
    while (input.size() < 1 * kMiB) {
      const auto r = rng();
      if (seed == 2 && r % 3 == 0)
        input += tokens[(r >> 8) % tokens.size()];
      else
        input += static_cast<char>(r >> 16);
    }
    input.resize(1 * kMiB);
    for (bool say : {false, true}) {
      parse::ParserOptions po;
      po.say_mode = say;
      const Counted whole = count_sizes(input, {}, po);
      const Counted chunked = count_sizes(input, gen::random_chunking(rng, input.size(), 4096), po);
      EXPECT_TRUE(whole.sink.ended);
      EXPECT_EQ(whole.sink.invalid_text_events, 0u);
      EXPECT_EQ(chunked.sink.invalid_text_events, 0u);
      expect_same_counts(whole, chunked, "whole vs random chunks");
      EXPECT_LE(whole.stats.max_held, 300 * kKiB);
      EXPECT_LE(whole.stats.bytes_examined, 4 * whole.stats.bytes_in);
      EXPECT_LE(whole.stats.bytes_replayed, whole.stats.bytes_in);
      std::uint64_t diags = 0;
      for (const auto& [code, n] : whole.sink.diagnostics) diags += n;
      std::printf(
          "[ bad input ] %s, say=%d: %llu text bytes out of %zu, %llu directives, %llu diagnostics, "
          "max_held %zu, examined/in %.3f, %.2f s\n",
          seed == 1 ? "random bytes" : "markup soup", say ? 1 : 0,
          static_cast<unsigned long long>(whole.sink.visible_bytes + whole.sink.hidden_bytes), input.size(),
          static_cast<unsigned long long>(whole.sink.directives), static_cast<unsigned long long>(diags),
          whole.stats.max_held,
          static_cast<double>(whole.stats.bytes_examined) / static_cast<double>(whole.stats.bytes_in),
          whole.secs);
    }
    const std::string_view prefix = std::string_view(input).substr(0, 64 * kKiB);
    expect_same_counts(count_sizes(prefix, {}), count_sizes(prefix, gen::fixed_chunking(prefix.size(), 1)),
                       "64 KiB whole vs byte by byte");
  }
}

TEST(BadInput, NulBytesInTextAttributesAndBodies) {
  using namespace std::string_literals;
  {
    const gen::EventLog log = run_all_ways("Hello\0world\0"s);
    EXPECT_EQ(log.visible, "Hello\0world\0"s);  // U+0000 is valid UTF-8: kept as text
  }
  {
    const gen::EventLog log = run_all_ways("A <react emoji=\"a\0b\"/> B"s);
    ASSERT_EQ(log.directives.size(), 1u);
    EXPECT_EQ(log.directives[0].action, "react");
    EXPECT_EQ(log.visible, "A B");
  }
  {
    const gen::EventLog log = run_all_ways("<voice>x\0y</voice>ok"s);
    ASSERT_EQ(log.directives.size(), 1u);
    EXPECT_EQ(log.directives[0].action, "voice");
    EXPECT_TRUE(log.directives[0].valid);
    EXPECT_EQ(log.visible, "ok");
  }
  {
    const gen::EventLog log = run_all_ways("[REMEMBER:a\0b] ok"s);
    ASSERT_EQ(log.directives.size(), 1u);
    EXPECT_EQ(log.directives[0].action, "remember");
    EXPECT_EQ(log.visible, "ok");
  }
  {
    const gen::EventLog log = run_all_ways("<setMemory>{\"itemId\":\"a\0b\",\0\"value\":1}</setMemory>ok"s);
    ASSERT_EQ(log.directives.size(), 1u);  // valid or not, listed and removed
    EXPECT_EQ(log.directives[0].action, "setMemory");
    EXPECT_EQ(log.visible, "ok");
  }
  {
    const gen::EventLog log = run_all_ways("<mcp_github_x a=\"\0\">{\"q\":\"\0\"}</mcp_github_x>ok"s);
    ASSERT_EQ(log.directives.size(), 1u);
    EXPECT_EQ(log.directives[0].action, "mcp");
    EXPECT_EQ(log.visible, "ok");
  }
  {
    const std::string in = "<re\0act emoji=\"x\"/> [REMEM\0BER:x] <\0voice>"s;  // a NUL breaks a name: text
    const gen::EventLog log = run_all_ways(in);
    EXPECT_EQ(log.directives.size(), 0u);
    EXPECT_EQ(log.visible, in);
  }
  {
    const std::string in(1 * kMiB, '\0');
    Counted c = count(in, 0);
    EXPECT_EQ(c.sink.visible_bytes, in.size());
    EXPECT_EQ(c.sink.directives, 0u);
  }
}

// ------------------------------------------------------------------------------------------------ sizes

TEST(BadInput, HugeReplyOfProseInChunks) {
#ifdef NDEBUG
  const std::size_t total = 100 * kMiB;
#else
  const std::size_t total = 16 * kMiB;
#endif
  // A 64 KiB block of prose (no markup, no sentinel, starting and ending with a word), repeated.
  gen::ReplyGenerator g(99);
  std::string block = "Start.";
  while (block.size() < 64 * kKiB - 64) block += " " + g.prose(30);
  block.resize(64 * kKiB - 5);
  while (!block.empty() && (static_cast<unsigned char>(block.back()) & 0xC0) == 0x80) block.pop_back();
  while (!block.empty() && static_cast<unsigned char>(block.back()) >= 0xC0) block.pop_back();
  block += " End.";
  ASSERT_EQ(block.find_first_of("<[`"), std::string::npos);

  CountingSink sink;
  parse::Parser parser(grammar(), sink);
  const auto start = std::chrono::steady_clock::now();
  std::size_t fed = 0;
  while (fed < total) {
    parser.feed(block);
    fed += block.size();
  }
  parser.finish();
  const double secs = gen::seconds_since(start);
  const auto& st = parser.stats();
  EXPECT_EQ(st.bytes_in, fed);
  EXPECT_EQ(sink.visible_bytes, fed);  // nothing to remove, nothing to trim
  EXPECT_EQ(sink.directives, 0u);
  EXPECT_EQ(sink.invalid_text_events, 0u);
  EXPECT_LE(st.max_held, 64u);
  EXPECT_LE(st.bytes_examined, 4 * st.bytes_in);
  EXPECT_FALSE(sink.silent);
  std::printf(
      "[ bad input ] %zu MiB of prose in 64 KiB chunks: %llu bytes out, max_held %zu, examined/in %.4f, "
      "%.2f s (%.0f MiB/s)\n",
      fed / kMiB, static_cast<unsigned long long>(sink.visible_bytes), st.max_held,
      static_cast<double>(st.bytes_examined) / static_cast<double>(st.bytes_in), secs,
      static_cast<double>(fed) / kMiB / secs);
}

TEST(BadInput, TenMebibyteAttribute) {
  for (const std::string& head : {std::string("<react emoji=\""), std::string("<react emoji="),
                                  std::string("<voice note='"), std::string("<mcp_github_x q=\"")}) {
    SCOPED_TRACE(head);
    const std::string input = "Hi " + head + std::string(10 * kMiB, 'a') + "\"/> tail";
    Counted c = count(input, 64 * kKiB);
    EXPECT_EQ(c.sink.valid_directives, 0u);
    EXPECT_GE(c.sink.diagnostics["tag-too-long"], 1u);
    EXPECT_LE(c.stats.max_held, 9 * kKiB);
    // Released as text: everything comes out (the tidier may drop a space or two).
    EXPECT_GE(c.sink.visible_bytes, input.size() - 16);
    EXPECT_LE(c.stats.bytes_examined, 4 * c.stats.bytes_in);
  }
}

TEST(BadInput, MebibyteOfOpenBrackets) {
  const std::string input(1 * kMiB, '[');
  for (std::size_t chunk : {std::size_t{0}, std::size_t{4096}}) {
    Counted c = count(input, chunk);
    EXPECT_EQ(c.sink.visible_bytes, input.size());
    EXPECT_EQ(c.sink.visible_hash, fnv(input));  // every `[` shown, nothing else
    EXPECT_EQ(c.sink.directives, 0u);
    EXPECT_LE(c.stats.max_held, 64u);
  }
  const std::string search = "[SEARCH:" + std::string(1 * kMiB, '[');
  Counted c = count(search, 4096);
  EXPECT_EQ(c.sink.visible_bytes, search.size());
  EXPECT_GE(c.sink.diagnostics["bracket-too-long"], 1u);
  EXPECT_LE(c.stats.max_held, 5 * kKiB);
}

struct BigBody {
  const char* name;
  std::string head, filler, tail;
  const char* action;
  std::size_t limit;
};

TEST(BadInput, MebibyteBodiesOverTheirLimits) {
  const std::vector<BigBody> cases = {
      {"json", "<setMemory>{\"itemId\":\"a\",\"value\":\"", "x", "\"}</setMemory>", "setMemory", 64 * kKiB},
      {"json nested", "<setMemory>", "[", "</setMemory>", "setMemory", 64 * kKiB},
      {"mcp", "<mcp_github_create_issue>{\"body\":\"", "y", "\"}</mcp_github_create_issue>", "mcp",
       256 * kKiB},
      {"markup", "<publishWebPage><p>", "z", "</p></publishWebPage>", "publishWebPage", 256 * kKiB},
  };
  for (const BigBody& b : cases) {
    SCOPED_TRACE(b.name);
    const std::string input = "Before. " + b.head + std::string(1 * kMiB, b.filler[0]) + b.tail + " After.";
    for (std::size_t chunk : {std::size_t{0}, std::size_t{4096}}) {
      Counted c = count(input, chunk);
      EXPECT_EQ(c.sink.directives, 1u);
      EXPECT_EQ(c.sink.valid_directives, 0u);
      EXPECT_EQ(c.sink.actions[b.action], 1u);
      EXPECT_GE(c.sink.diagnostics["body-too-long"], 1u);
      EXPECT_EQ(c.sink.visible_bytes,
                std::string("Before. After.").size());  // the body is removed, not shown
      EXPECT_LE(c.stats.max_held, b.limit + 1 * kKiB);
    }
    // Never closed: still invalid, still removed, still bounded.
    const std::string open = "Before. " + b.head + std::string(1 * kMiB, b.filler[0]);
    Counted c = count(open, 4096);
    EXPECT_EQ(c.sink.directives, 1u);
    EXPECT_EQ(c.sink.valid_directives, 0u);
    EXPECT_EQ(c.sink.visible_bytes, std::string("Before.").size());
    EXPECT_LE(c.stats.max_held, b.limit + 1 * kKiB);
  }
  // A text body over its limit is abandoned (2.8): released as text, with a diagnostic.
  const std::string voice = "<voice>" + std::string(1 * kMiB, 'v') + "</voice>";
  Counted c = count(voice, 4096);
  EXPECT_EQ(c.sink.directives, 0u);
  EXPECT_GE(c.sink.diagnostics["body-too-long"], 1u);
  EXPECT_EQ(c.sink.visible_bytes, voice.size() - std::string("</voice>").size());  // the orphan close goes
  EXPECT_LE(c.stats.max_held, 17 * kKiB);
}

TEST(BadInput, HundredThousandDirectives) {
  // 100k fed whole; 10k in 1000-byte chunks (the work per directive dominates: keep the test short).
  for (const std::size_t n : {std::size_t{100000}, std::size_t{10000}}) {
    const std::size_t chunk = n == 10000 ? 1000 : 0;
    std::string input;
    for (std::size_t i = 0; i < n; ++i) input += i % 2 ? "<react emoji=\"👍\"/> " : "[REMEMBER:x] ";
    Counted c = count(input, chunk);
    EXPECT_EQ(c.sink.directives, n);
    EXPECT_EQ(c.sink.valid_directives, 32u);  // 12.5: 32 per reply
    std::uint64_t over = 0;  // errors read "over the per-reply limit", perhaps after the action's name
    for (const auto& [error, k] : c.sink.errors)
      if (error.find("over the per-reply limit") != std::string::npos) over += k;
    EXPECT_EQ(over, n - 32);
    EXPECT_EQ(c.sink.diagnostics["over-limit"], n - 32);
    EXPECT_EQ(c.sink.visible_bytes, 0u);
    EXPECT_LE(c.stats.max_held, 64u);
    EXPECT_LE(c.stats.bytes_examined, 4 * c.stats.bytes_in);
    std::printf("[ bad input ] %zu directives (chunk %zu): %.2f s, max_held %zu\n", n, chunk, c.secs,
                c.stats.max_held);
  }
  // Say blocks do not count toward the cap (12.5).
  std::string say;
  for (int i = 0; i < 100; ++i) say += "<say>hi</say>";
  for (int i = 0; i < 40; ++i) say += "<react emoji=\"x\"/>";
  parse::ParserOptions po;
  po.say_mode = true;
  Counted c = count(say, 7, po);
  EXPECT_EQ(c.sink.actions["say"], 100u);
  EXPECT_EQ(c.sink.valid_directives, 100u + 32u);
}

// ------------------------------------------------------------------------------------------------
// diagnostics

struct Dropped {
  std::string input;
  const char* code;
  bool cut_off = false;
  bool say = false;
};

// Something was dropped, refused or released: a diagnostic says so, and the same one for any chunking.
TEST(BadInput, DiagnosticsWhereSomethingWasDropped) {
  const std::vector<Dropped> cases = {
      {"Hi <voice>hello", "abandoned"},
      {"Hi [REMEMBER:tea", "abandoned"},
      {"Hi <react emoji=\"x\" and more", "abandoned"},
      {"<voice>a [REMEMBER:b] c</voice>", "abandoned"},
      {"<react emoji=\"" + std::string(9000, 'a') + "\"/>", "tag-too-long"},
      {"<voice>" + std::string(17 * kKiB, 'a') + "</voice>", "body-too-long"},
      {"<remember>" + std::string(5 * kKiB, 'a') + "</remember>", "body-too-long"},
      {"<setMemory>{\"a\":\"" + std::string(70 * kKiB, 'a') + "\"}</setMemory>", "body-too-long"},
      {"<publishWebPage>" + std::string(300 * kKiB, 'a') + "</publishWebPage>", "body-too-long"},
      {"[REMEMBER:" + std::string(5000, 'a') + "]", "bracket-too-long"},
      {"<!--" + std::string(9000, 'a') + "-->", "comment-too-long"},
      {"Hi <!-- never closed", "unclosed-comment"},
      {"<think>\nnever closed", "unclosed-hidden"},
      {"Hi </react> there", "orphan-close-tag"},
      {"<actions><thumbsup/></actions>", "unregistered-tag-removed"},
      {"<setMemory>{'itemId':'a','value':1,}</setMemory>", "json-repaired"},
      {"<setMemory>{\"itemId\":\"a\",\"value\":1} and text", "unclosed"},
      {"<setMemory>{\"itemId\":\"a\",\"value\":1}{\"itemId\":\"b\",\"value\":2}</setMemory>", "extra-value"},
      {"<voice><voice>Hi</voice>", "repeated-tag"},
      {"Hi <voice>hello", "cut-off", true},
      {"Hi <react emoji=\"x", "cut-off", true},
      {"Hi [REMEMBER:tea", "cut-off", true},
      {"<react/>", "invalid-directive"},
      {"[SEARCH:a] [REMEMBER:b]", "after-interrupt"},
      {"<say></say>", "empty-say", false, true},
      {"<say>a <say>b</say></say>", "nested-say", false, true},
      {"plain text", "no-say-block", false, true},
      {"Hello. <no-reply/>", "late-sentinel"},
  };
  std::string over_limit;
  for (int i = 0; i < 33; ++i) over_limit += "[REMEMBER:x]";
  std::vector<Dropped> all = cases;
  all.push_back({over_limit, "over-limit"});
  for (const Dropped& d : all) {
    RunOptions o;
    o.cut_off = d.cut_off;
    o.say = d.say;
    const gen::EventLog log = run_all_ways(d.input, o, 7);
    EXPECT_TRUE(has_diag(log, d.code))
        << "no `" << d.code << "` diagnostic for " << gen::c_literal(d.input, 200) << "; got: " << codes(log);
    EXPECT_LE(log.stats.max_held, 300 * kKiB);
  }
}

}  // namespace
