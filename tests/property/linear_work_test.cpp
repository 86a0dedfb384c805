// Spec 11.3 and 11.4, asserted as counts from Parser::stats(): for adversarial replies of about 1 MiB, fed
// whole and (up to 256 KiB) byte by byte,
//   bytes_examined <= kExaminedPerByte * bytes_in   (each byte stepped a bounded number of times),
//   bytes_replayed <= bytes_in                       (replays are bounded and never cascade),
//   max_held       <= kHeldCap                       (the biggest body limit, 256 KiB, plus slack),
// and max_held does not grow with the input (256 KiB vs 1 MiB runs). Plain prose is not held back: after N
// bytes are fed, the text events so far cover at least N - 8 KiB.
// Each row's measurements are printed ("[ linear ] …") for the record.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>

#include "grammar_gen.h"
#include "sigil/text/utf8.h"

namespace {

using namespace sigil;
using namespace sigil::testing;

constexpr std::uint64_t kExaminedPerByte = 4;
constexpr std::size_t kHeldCap = 300 * 1024;
constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

using gen::CountingSink;

const parse::CompiledGrammar& grammar() {
  static const parse::CompiledGrammar g(conformance_registry());
  return g;
}

struct Measure {
  parse::ParserStats stats;
  CountingSink sink;
  double secs = 0;
};

// Feeds `input` in chunks of `chunk` bytes (0: whole).
Measure measure(std::string_view input, std::size_t chunk, bool say = false) {
  Measure m;
  parse::ParserOptions po;
  po.say_mode = say;
  const auto start = std::chrono::steady_clock::now();
  parse::Parser parser(grammar(), m.sink, po);
  const std::size_t step = chunk == 0 ? std::max<std::size_t>(input.size(), 1) : chunk;
  for (std::size_t i = 0; i < input.size(); i += step) parser.feed(input.substr(i, step));
  parser.finish();
  m.secs = gen::seconds_since(start);
  m.stats = parser.stats();
  return m;
}

// `unit` repeated to exactly n bytes (the last copy cut).
std::string repeat(std::string_view unit, std::size_t n) {
  std::string s;
  s.reserve(n + unit.size());
  while (s.size() < n) s += unit;
  s.resize(n);
  return s;
}

struct Adversary {
  std::string name;
  std::function<std::string(std::size_t)> make;
  bool say = false;
};

std::ostream& operator<<(std::ostream& os, const Adversary& a) { return os << a.name; }

std::vector<Adversary> adversaries() {
  auto rep = [](std::string unit) { return [unit](std::size_t n) { return repeat(unit, n); }; };
  auto prefixed = [](std::string head, std::string unit) {
    return [head, unit](std::size_t n) { return head + repeat(unit, n - head.size()); };
  };
  return {
      {"voice_openers", rep("<voice>")},
      {"voice_openers_with_text", rep("<voice>x ")},
      {"voice_openers_on_lines", rep("<voice>\n")},
      {"actions_openers", rep("<actions>")},
      {"react_unclosed_quote", rep("<react emoji=\"")},
      {"react_unclosed_single_quote", rep("<react emoji='a ")},
      {"comment_openers", rep("<!--")},
      {"cdata_openers", rep("<![CDATA[")},
      {"lt_run", rep("<")},
      {"lt_slash_run", rep("</")},
      {"bracket_run", rep("[")},
      {"remember_openers", rep("[REMEMBER:")},
      {"remember_openers_on_lines", rep("[REMEMBER:a\n")},
      {"endless_attributes", prefixed("<react", " a=1")},
      {"endless_quoted_attributes", prefixed("<react", " emoji=\"x\"")},
      {"deep_brackets", prefixed("[SEARCH:", "[")},
      {"nested_search_openers", rep("[SEARCH:[")},
      {"huge_attribute_value", prefixed("<react emoji=\"", "a")},
      {"huge_unquoted_value", prefixed("<react emoji=", "a")},
      // (Text first: a <think> with only whitespace before it opens a region at once, 8.1.)
      {"think_line_starts", prefixed("Hi", "\n<think> a")},
      {"think_line_starts_spaces", prefixed("Hi", "\n<think>   ")},
      {"think_line_starts_lts", prefixed("Hi", "\n<think> <")},
      {"think_then_long_line", prefixed("Hi\n<think> ", "a")},
      {"think_then_long_line_lts", prefixed("Hi\n<think> ", "<")},
      {"think_regions", prefixed("Hi", "\n<think>\nx\n</think>")},
      {"think_openers_at_start", rep("<think>\n")},
      {"hidden_region_lts", prefixed("<think>\n", "<")},
      {"hidden_region_close_prefixes", prefixed("<think>\n", "</thin")},
      {"json_deep_objects", prefixed("<setMemory>{", "{\"a\":")},
      {"json_deep_arrays", prefixed("<setMemory>", "[")},
      {"json_openers", rep("<setMemory>{")},
      {"json_lt_replays", rep("<setMemory> <s")},
      {"json_value_lt_replays", rep("<setMemory>{}<se")},
      {"json_open_string", prefixed("<setMemory>{\"a\": \"", "x")},
      {"json_fence_lines", rep("<setMemory>\n```json\n")},
      {"mcp_prefixes", rep("<mcp_github_")},
      {"mcp_long_tool", prefixed("<mcp_github_", "a")},
      {"mcp_openers_json", rep("<mcp_github_x>{")},
      {"voice_partial_close", rep("<voice>x</voi")},
      {"text_body_lts", prefixed("<voice>", "<")},
      {"markup_body", prefixed("<publishWebPage>", "<p>x</p>")},
      {"path_body_lines", rep("<file>\n<")},
      {"backticks", rep("`")},
      {"fence_lines", rep("```\n")},
      {"inline_code_lt", rep("`<voice>")},
      {"ampersands", rep("&amp")},
      {"sentinel_like_lines", rep("**NO_REPLY\n")},
      {"whitespace", rep(" ")},
      {"say_openers", rep("<say>"), true},
      {"say_blocks", rep("<say>a block of a few words</say>"), true},
      {"actions_window_unregistered", prefixed("<actions>", "<thumbsup a=\"")},
      {"actions_window_long_tag", prefixed("<actions><thumbsup a=\"", "x")},
      {"actions_window_many_tags", prefixed("<actions>", "<thumbsup/>")},
      {"emphasis_directives", rep("**<react emoji=\"x\"/>** ")},
      {"list_marker_lines", rep("- <react emoji=\"x\"/>\n")},
      {"blank_lines_comments", rep("\n\n<!---->\n\n")},
      {"crlf", rep("\r\n")},
      {"cr_only", rep("\r")},
      {"sentinel_tags", rep("<no-reply/>")},
      {"orphan_closes", rep("</react>")},
      {"invalid_utf8", rep("\xff")},
      {"truncated_utf8", rep("\xe2\x82")},
      {"mcp_deep_json", prefixed("<mcp_github_x>", "[")},
      {"json_close_tags_in_string", prefixed("<setMemory>{\"a\":\"", "</setMemory>")},
      {"json_values_in_a_row", prefixed("<setMemory>", "{}")},
      {"voice_repeats_with_spaces", rep("<voice> ")},
      {"comments_closed", rep("<!-- c -->")},
  };
}

class LinearWork : public ::testing::TestWithParam<Adversary> {};

TEST_P(LinearWork, Adversarial) {
  const Adversary& a = GetParam();
  const std::string small = a.make(256 * kKiB);
  const std::string big = a.make(1 * kMiB);
  ASSERT_EQ(small.size(), 256 * kKiB);
  ASSERT_EQ(big.size(), 1 * kMiB);

  const Measure ws = measure(small, 0, a.say);
  const Measure wb = measure(big, 0, a.say);
  const std::string tiny = a.make(64 * kKiB);
  const Measure wt = measure(tiny, 0, a.say);
  const Measure bytes = measure(tiny, 1, a.say);

  for (const Measure* m : {&ws, &wb, &bytes}) {
    const char* which = m == &ws ? "256 KiB whole" : m == &wb ? "1 MiB whole" : "64 KiB byte by byte";
    SCOPED_TRACE(which);
    EXPECT_TRUE(m->sink.ended);
    EXPECT_EQ(m->sink.invalid_text_events, 0u);
    EXPECT_LE(m->stats.bytes_examined, kExaminedPerByte * m->stats.bytes_in);
    EXPECT_LE(m->stats.bytes_replayed, m->stats.bytes_in);
    EXPECT_LE(m->stats.max_held, kHeldCap);
  }
  EXPECT_EQ(wb.stats.bytes_in, big.size());
  // Held bytes do not grow with the input: 4x the input, (almost) the same high-water mark.
  EXPECT_LE(wb.stats.max_held, ws.stats.max_held + 4 * kKiB);
  // Chunking does not change the work much either (a byte-by-byte run examines what a whole run does).
  EXPECT_LE(bytes.stats.bytes_examined, wt.stats.bytes_examined + wt.stats.bytes_in / 8 + 64);
  // Same answer byte by byte (11.2), in counts and content.
  EXPECT_EQ(bytes.sink.visible_bytes, wt.sink.visible_bytes);
  EXPECT_EQ(bytes.sink.visible_hash, wt.sink.visible_hash);
  EXPECT_EQ(bytes.sink.hidden_bytes, wt.sink.hidden_bytes);
  EXPECT_EQ(bytes.sink.directives, wt.sink.directives);
  EXPECT_EQ(bytes.sink.diagnostics, wt.sink.diagnostics);

  auto ratio = [](const Measure& m) {
    return static_cast<double>(m.stats.bytes_examined) / static_cast<double>(m.stats.bytes_in);
  };
  std::printf(
      "[ linear ] %-28s examined/in %.4f (1 MiB) %.4f (256 KiB) %.4f (1-byte) | replayed/in %.4f | "
      "max_held %zu (256 KiB) %zu (1 MiB) | %.0f ms (1 MiB), time 1 MiB / 256 KiB %.1f | out %llu B\n",
      a.name.c_str(), ratio(wb), ratio(ws), ratio(bytes),
      static_cast<double>(wb.stats.bytes_replayed) / static_cast<double>(wb.stats.bytes_in),
      ws.stats.max_held, wb.stats.max_held, wb.secs * 1000, wb.secs / std::max(ws.secs, 1e-6),
      static_cast<unsigned long long>(wb.sink.visible_bytes + wb.sink.hidden_bytes));
}

INSTANTIATE_TEST_SUITE_P(Linear, LinearWork, ::testing::ValuesIn(adversaries()),
                         [](const ::testing::TestParamInfo<Adversary>& info) { return info.param.name; });

// A 10 MiB attribute value, fed whole and in 64 KiB chunks.
TEST(LinearWorkBig, TenMebibyteAttribute) {
  const std::string input = "<react emoji=\"" + std::string(10 * kMiB, 'a') + "\"/> done";
  for (std::size_t chunk : {std::size_t{0}, 64 * kKiB}) {
    const Measure m = measure(input, chunk);
    EXPECT_LE(m.stats.bytes_examined, kExaminedPerByte * m.stats.bytes_in);
    EXPECT_LE(m.stats.bytes_replayed, m.stats.bytes_in);
    EXPECT_LE(m.stats.max_held, 9 * kKiB);  // the open tag limit (8 KiB) and a little
    EXPECT_EQ(m.sink.valid_directives, 0u);
    EXPECT_GE(m.sink.diagnostics.count("tag-too-long"), 1u);
    std::printf("[ linear ] %-28s examined/in %.3f | replayed %llu | max_held %zu | %.0f ms (chunk %zu)\n",
                "attribute_10MiB",
                static_cast<double>(m.stats.bytes_examined) / static_cast<double>(m.stats.bytes_in),
                static_cast<unsigned long long>(m.stats.bytes_replayed), m.stats.max_held, m.secs * 1000,
                chunk);
  }
}

// ------------------------------------------------------------------------------------------------ hold-back

// Feeds `input` in random chunks; after each feed, the visible (or, `hidden`, hidden) text so far must cover
// all but `slack` bytes of what was fed past `offset` (where the prose starts).
void expect_not_held_back(const std::string& input, std::size_t offset, bool say, bool hidden,
                          std::size_t slack, std::uint64_t seed, std::size_t max_chunk) {
  CountingSink sink;
  parse::ParserOptions po;
  po.say_mode = say;
  parse::Parser parser(grammar(), sink, po);
  std::mt19937_64 rng(seed);
  std::size_t fed = 0, worst = 0;
  for (std::size_t n : gen::random_chunking(rng, input.size(), max_chunk)) {
    parser.feed(std::string_view(input).substr(fed, n));
    fed += n;
    const std::uint64_t out = hidden ? sink.hidden_bytes : sink.visible_bytes;
    const std::size_t prose_fed = fed > offset ? fed - offset : 0;
    const std::size_t behind = prose_fed > out ? prose_fed - static_cast<std::size_t>(out) : 0;
    worst = std::max(worst, behind);
    if (behind > slack) {
      ADD_FAILURE() << "after " << fed << " bytes fed, only " << out << " bytes of text were emitted ("
                    << behind << " held back); around there: "
                    << gen::c_literal(std::string_view(input).substr(fed > 200 ? fed - 200 : 0, 200));
      return;
    }
  }
  parser.finish();
  std::printf("[ linear ] hold-back: at most %zu bytes behind over %zu bytes of prose (say=%d)\n", worst,
              input.size() - offset, say ? 1 : 0);
}

std::string long_prose(std::uint64_t seed, std::size_t n) {
  gen::ReplyGenerator g(seed);
  std::string s = "Start.";
  while (s.size() < n) s += " " + g.prose(40);
  s += " End.";
  return s;
}

TEST(LinearWorkHoldBack, ProseIsDeliveredAsItComes) {
  const std::string prose = long_prose(7, 1 * kMiB);
  expect_not_held_back(prose, 0, false, false, 8 * kKiB, 1, 4096);
  expect_not_held_back(prose.substr(0, 64 * kKiB), 0, false, false, 8 * kKiB, 2, 1);
}

TEST(LinearWorkHoldBack, ProseWithLongWhitespaceRuns) {
  gen::ReplyGenerator g(11);
  std::string s = "Start.";
  while (s.size() < 512 * kKiB) s += g.prose(20) + std::string(1 + g.below(5000), g.chance(0.5) ? ' ' : '\n');
  expect_not_held_back(s + "End.", 0, false, false, 8 * kKiB, 3, 512);
}

TEST(LinearWorkHoldBack, SayBlockDeliveredAsItComes) {
  const std::string prose = long_prose(8, 512 * kKiB);
  expect_not_held_back("<say>" + prose + "</say>", 5, true, false, 8 * kKiB, 4, 4096);
}

TEST(LinearWorkHoldBack, SayModeHiddenTextAsItComes) {
  const std::string prose = long_prose(9, 512 * kKiB);
  expect_not_held_back(prose, 0, true, true, 8 * kKiB, 5, 4096);
}

// The check can fail: a reply that is one long partial construct is (rightly) held back.
TEST(LinearWorkHoldBack, CheckCanFail) {
  EXPECT_NONFATAL_FAILURE(
      expect_not_held_back("<voice>" + std::string(12 * kKiB, 'a'), 0, false, false, 8 * kKiB, 6, 512),
      "held back");
}

}  // namespace

// ------------------------------------------------------------------------------------------------ known bugs
namespace {

// BUG: stats().max_held omits the bytes a line-start hidden-region opener holds while it waits for its line
// break or close tag (8.1; up to hidden_opener_limit = 4 KiB, 11.3): Parser::Impl::on_byte() returns from
// its HiddenWait branch before note_held(). Here ~4 KiB are held, and all replayed when the line ends
// without a close tag (bytes_replayed 4000), yet max_held reports 7: a test bounding memory by max_held
// cannot see this buffer grow.
TEST(LinearWorkRegression, MaxHeldCountsAHiddenOpenerWaitingForItsLine) {
  const std::string input = "Hi\n<think> " + std::string(4000, 'a') + "\nmore";
  const Measure m = measure(input, 0);
  EXPECT_GE(m.stats.bytes_replayed, 4000u);  // the wait held them
  EXPECT_GE(m.stats.max_held, 4000u);
}

}  // namespace
