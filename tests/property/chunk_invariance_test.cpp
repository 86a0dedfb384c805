// Spec 11.2, any chunking, same answer: for random replies from the whole grammar, the reply fed whole and
// fed in random chunkings (sizes 1..64 with empty chunks now and then, 1..4, and byte by byte) must give the
// same summary (text, silent, directives with args and errors, diagnostics), the same concatenated visible
// and hidden text, and the same sequence of directive (span and clean_offset included), diagnostic, silence,
// fallback and end events. Say mode on and off, finish `stop` and `length`, `--think-open`, policy denials.
//
// Reproduce a failure: SIGIL_PROPERTY_SEED=<seed printed> SIGIL_PROPERTY_CASES=1 ./sigil_tests
//   --gtest_filter='PropertyChunkInvariance.*'
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "grammar_gen.h"
#include "support/conformance_vectors.h"
#include "support/run_parse.h"

namespace {

namespace json = boost::json;
using namespace sigil::testing;
using namespace sigil::testing::gen;

std::string describe_options(const RunOptions& o) {
  std::string s = std::string("say=") + (o.say ? "1" : "0") + " cut_off=" + (o.cut_off ? "1" : "0") +
                  " think_open=" + (o.think_open ? "1" : "0");
  if (!o.deny.empty()) {
    s += " deny=";
    for (const auto& d : o.deny) s += d + ",";
  }
  return s;
}

RunOptions random_options(ReplyGenerator& g) {
  RunOptions o;
  o.say = g.chance(0.33);
  o.cut_off = g.chance(0.2);
  o.think_open = g.chance(0.05);
  if (g.chance(0.08)) {
    static const std::vector<std::vector<std::string>> denials = {
        {"voice"}, {"react", "mcp"}, {"search"}, {"remember", "setMemory"}};
    o.deny = g.pick(denials);
  }
  return o;
}

struct Tally {
  int cases = 0;
  int runs = 0;
  std::uint64_t bytes = 0;
  int failures = 0;
  // What the whole runs reached: the generator must keep covering the grammar.
  std::map<std::string, int> actions, codes;
  int valid = 0, invalid = 0, silent = 0;
};

std::string histogram(const std::map<std::string, int>& m) {
  std::string s;
  for (const auto& [k, n] : m) s += k + "=" + std::to_string(n) + " ";
  return s;
}

// Runs `reply` whole and in the given chunkings; reports the first difference or protocol problem.
void check_reply(const std::string& reply, const RunOptions& o, std::uint64_t seed,
                 const std::vector<std::vector<std::size_t>>& chunkings, Tally& t) {
  ++t.cases;
  t.bytes += reply.size();
  const EventLog whole = run_events(reply, o, {});
  ++t.runs;
  auto fail = [&](const std::vector<std::size_t>& sizes, const std::string& why) {
    ++t.failures;
    ADD_FAILURE() << "seed " << seed << " (" << describe_options(o) << "), chunking "
                  << describe_chunks(sizes) << ":\n  " << why << "\n  reply (" << reply.size()
                  << " bytes): " << c_literal(reply) << "\n  reproduce: SIGIL_PROPERTY_SEED=" << seed
                  << " SIGIL_PROPERTY_CASES=1";
  };
  if (!whole.problems.empty()) {
    fail({}, whole.problems.front());
    return;
  }
  for (const auto& d : whole.directives) {
    ++t.actions[d.action];
    ++(d.valid ? t.valid : t.invalid);
  }
  for (const auto& g : whole.diagnostics) ++t.codes[g.code];
  if (whole.summary.at("silent").as_bool()) ++t.silent;
  for (const auto& sizes : chunkings) {
    const EventLog log = run_events(reply, o, sizes);
    ++t.runs;
    if (!log.problems.empty()) return fail(sizes, log.problems.front());
    if (std::string d = first_difference(whole, log); !d.empty()) return fail(sizes, d);
  }
}

// Calls check(g, seed) with a generator of each seed from `base` on, `cases` of them, until `t` holds
// `max_failures` failures (a broken parser fails most seeds: a few are enough to read).
template <class Check>
void over_seeds(std::uint64_t base, int cases, const Tally& t, int max_failures, Check&& check) {
  for (int i = 0; i < cases && t.failures < max_failures; ++i) {
    const std::uint64_t seed = base + static_cast<std::uint64_t>(i);
    ReplyGenerator g(seed);
    check(g, seed);
  }
}

std::vector<std::vector<std::size_t>> chunkings_for(std::mt19937_64& rng, std::size_t size) {
  return {
      fixed_chunking(size, 1),
      random_chunking(rng, size, 64),
      random_chunking(rng, size, 64),
      random_chunking(rng, size, 4),
  };
}

TEST(PropertyChunkInvariance, RandomReplies) {
  const auto start = std::chrono::steady_clock::now();
  const int cases = property_cases(3000);
  Tally t;
  over_seeds(property_seed(0x51617000), cases, t, 10, [&](ReplyGenerator& g, std::uint64_t seed) {
    const std::string reply = g.reply();
    const RunOptions o = random_options(g);
    check_reply(reply, o, seed, chunkings_for(g.rng(), reply.size()), t);
  });
  const double secs = seconds_since(start);
  std::cout << "[ property ] chunk invariance: " << t.cases << " replies (" << t.bytes << " bytes), "
            << t.runs << " parser runs, " << t.failures << " failing, " << secs << " s\n"
            << "[ property ]   directives: " << t.valid << " valid, " << t.invalid << " invalid; " << t.silent
            << " silent replies\n[ property ]   actions: " << histogram(t.actions)
            << "\n[ property ]   diagnostics: " << histogram(t.codes) << "\n";
  if (cases >= 1000) {  // the generator reaches (nearly) every action and diagnostic
    EXPECT_GE(t.actions.size(), 22u) << histogram(t.actions);
    EXPECT_GE(t.codes.size(), 20u) << histogram(t.codes);
    EXPECT_GT(t.silent, cases / 100);
  }
}

// Long replies: many constructs per reply, so state carried across many chunk boundaries.
TEST(PropertyChunkInvariance, LongReplies) {
  const auto start = std::chrono::steady_clock::now();
  const int cases = std::max(1, property_cases(3000) / 30);
  Tally t;
  over_seeds(property_seed(0x10A6000), cases, t, 5, [&](ReplyGenerator& g, std::uint64_t seed) {
    std::string reply;
    for (int k = 0; k < 8; ++k) reply += g.reply(40) + "\n";
    const RunOptions o = random_options(g);
    check_reply(reply, o, seed, {fixed_chunking(reply.size(), 1), random_chunking(g.rng(), reply.size(), 64)},
                t);
  });
  const double secs = seconds_since(start);
  std::cout << "[ property ] chunk invariance, long replies: " << t.cases << " replies (" << t.bytes
            << " bytes), " << t.runs << " parser runs, " << secs << " s\n";
}

// Every stage-1 kernel this CPU runs, through the whole parser: long replies (some with invalid UTF-8 spliced
// in, so that the sanitizer's pieces and the masks meet) give, whole and in random chunkings, the events of
// the best kernel fed whole.
TEST(PropertyChunkInvariance, EveryStage1Kernel) {
  const int cases = std::max(1, property_cases(3000) / 60);
  Tally t;
  over_seeds(property_seed(0x57A6E100), cases, t, 5, [&](ReplyGenerator& g, std::uint64_t seed) {
    std::string reply;
    for (int k = 0; k < 8; ++k) {
      reply += g.reply(40) + "\n";
      if (g.chance(0.5))
        reply += g.pick(std::vector<std::string>{"\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xED\xA0\x80", "\xFF"});
    }
    const RunOptions o = random_options(g);
    const EventLog whole = run_events(reply, o, {});
    for (sigil::text::stage1::Kernel k : sigil::text::stage1::kAllKernels) {
      if (!sigil::text::stage1::kernel_supported(k)) continue;
      RunOptions ko = o;
      ko.stage1_kernel = k;
      for (const auto& sizes : {std::vector<std::size_t>{}, random_chunking(g.rng(), reply.size(), 80)}) {
        ++t.runs;
        const EventLog log = run_events(reply, ko, sizes);
        if (std::string d = first_difference(whole, log); !d.empty()) {
          ++t.failures;
          ADD_FAILURE() << "seed " << seed << " kernel " << sigil::text::stage1::kernel_name(k)
                        << " chunking " << describe_chunks(sizes) << ": " << d
                        << "\n  reply: " << c_literal(reply);
          break;
        }
      }
    }
  });
  EXPECT_EQ(t.failures, 0);
}

// ------------------------------------------------------------------------------------------------ vectors

using Vector = ConformanceVector;

const std::vector<Vector>& vectors() {
  static const std::vector<Vector> all = read_vector_dir(SIGIL_CONFORMANCE_DIR);
  return all;
}

// Every conformance vector, at event level (spans, clean offsets, event order), in random chunkings and with
// the other finish reason and say setting too.
TEST(PropertyChunkInvariance, ConformanceVectorsAtEventLevel) {
  const auto& vs = vectors();
  if (vs.empty()) GTEST_SKIP() << "no conformance vectors at " << SIGIL_CONFORMANCE_DIR;
  const auto start = std::chrono::steady_clock::now();
  std::mt19937_64 rng(property_seed(0xC0FFEE));
  Tally t;
  for (std::size_t i = 0; i < vs.size() && t.failures < 10; ++i) {
    const Vector& v = vs[i];
    const bool big = v.reply.size() > 64 * 1024;
    std::vector<std::vector<std::size_t>> chunkings = {random_chunking(rng, v.reply.size(), 64),
                                                       random_chunking(rng, v.reply.size(), 3)};
    if (!big) chunkings.push_back(fixed_chunking(v.reply.size(), 1));
    check_reply(v.reply, v.options, i, chunkings, t);
    RunOptions flipped = v.options;
    flipped.cut_off = !flipped.cut_off;
    flipped.say = (i % 2 == 0) ? !flipped.say : flipped.say;
    check_reply(v.reply, flipped, i, {random_chunking(rng, v.reply.size(), big ? 4096 : 8)}, t);
  }
  const double secs = seconds_since(start);
  std::cout << "[ property ] conformance vectors at event level: " << t.cases << " cases, " << t.runs
            << " parser runs, " << secs << " s (a failure's \"seed\" is the vector's index in file order)\n";
}

// Splices of conformance vectors (a prefix of one, a suffix of another, a random cut): realistic markup
// broken at random places.
TEST(PropertyChunkInvariance, SplicedVectors) {
  const auto& vs = vectors();
  if (vs.empty()) GTEST_SKIP() << "no conformance vectors";
  const auto start = std::chrono::steady_clock::now();
  const int cases = std::max(1, property_cases(3000) / 3);
  Tally t;
  over_seeds(property_seed(0x5911CE), cases, t, 10, [&](ReplyGenerator& g, std::uint64_t seed) {
    std::string reply;
    for (std::size_t k = 0, n = 1 + g.below(3); k < n; ++k) {
      const Vector& v = vs[g.below(vs.size())];
      if (v.reply.size() > 20000) continue;
      const std::size_t a = g.below(v.reply.size() + 1), b = g.below(v.reply.size() + 1);
      reply += v.reply.substr(std::min(a, b), std::max(a, b) - std::min(a, b));
      if (g.chance(0.3)) reply += g.directive();
    }
    RunOptions o = random_options(g);
    check_reply(reply, o, seed, {fixed_chunking(reply.size(), 1), random_chunking(g.rng(), reply.size(), 64)},
                t);
  });
  const double secs = seconds_since(start);
  std::cout << "[ property ] spliced vectors: " << t.cases << " replies (" << t.bytes << " bytes), " << t.runs
            << " parser runs, " << secs << " s\n";
}

// The harness itself must be able to fail: a sink-level difference is reported.
TEST(PropertyChunkInvariance, HarnessDetectsDifferences) {
  RunOptions o;
  EventLog a = run_events("Hi <react emoji=\"x\"/> there", o, {});
  EventLog b = a;
  EXPECT_EQ(first_difference(a, b), "");
  b.visible += "!";
  EXPECT_NE(first_difference(a, b), "");
  b = a;
  ASSERT_FALSE(b.events.empty());
  b.events.front() += " ";
  EXPECT_NE(first_difference(a, b), "");
  EXPECT_EQ(a.directives.size(), 1u);
  EXPECT_EQ(a.visible, "Hi there");
}

// A fuzzer find: an invalid byte right after a bracket's `]` was reported before the bracket's directive
// when the reply came whole, after it when the `]` ended a chunk.
TEST(PropertyRegression, InvalidUtf8RightAfterABracketKeepsEventOrder) {
  for (const std::string& reply : {std::string("Hi [SEARCH:x]\xcb\xcb tail"),
                                   std::string("[REMEMBER:tea]\xff ok"), std::string("a [NO_REPLY]\xc3")}) {
    const EventLog whole = run_events(reply, {}, {});
    for (std::size_t n : {1, 2, 3, 5}) {
      const EventLog chunked = run_events(reply, {}, fixed_chunking(reply.size(), n));
      EXPECT_EQ(whole.events, chunked.events) << c_literal(reply) << " in chunks of " << n;
    }
  }
}

// Calls `f` with chunk sizes for every way to cut the last `window` bytes of `size` (2^window ways), the
// bytes before them fed once whole and once one at a time: every chunking where it matters, at a bounded
// cost.
template <class F>
void for_each_chunking_near_end(std::size_t size, std::size_t window, F&& f) {
  window = std::min(window, size);
  const std::size_t head = size - window;
  std::vector<std::size_t> sizes;
  for (bool head_by_byte : {false, true}) {
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << window); ++mask) {
      sizes.clear();
      if (head_by_byte)
        sizes.assign(head, 1);
      else if (head > 0)
        sizes.push_back(head);
      // Bit i set: a cut right before byte head + i.
      std::size_t run = 0;
      for (std::size_t i = 0; i < window; ++i) {
        if (((mask >> i) & 1U) != 0 && run > 0) {
          sizes.push_back(run);
          run = 0;
        }
        ++run;
      }
      if (run > 0) sizes.push_back(run);
      f(sizes);
    }
  }
}

// A fuzzer find (fuzz/corpus/parser/say-interrupt-utf8-001): in say mode an interrupting bracket ended the
// open say block one byte past its `]`, on a byte whose input offset the UTF-8 sanitizer may not have
// resolved yet: `\xed&` fed whole became U+FFFD first (span_end 16), `\xed` held at a chunk's end did not
// (span_end 17). With the reply ending there, the block's span went past the reply. The block ends where the
// bracket ends. Every chunking of the last 8 bytes (from inside the bracket on) is tried.
TEST(PropertyRegression, SayBlockEndedByABracketIsChunkIndependent) {
  RunOptions say;
  say.say = true;
  for (const std::string& reply : {std::string("<say>a[SEARCH:b]\xed&"), std::string("<say>a[SEARCH:b]\xed"),
                                   std::string("<say>a[SEARCH:b]\xc3\xa9"), std::string("<say>a[SEARCH:b]x"),
                                   std::string("<say>a[SEARCH:b]")}) {
    const EventLog whole = run_events(reply, say, {});
    EXPECT_TRUE(whole.problems.empty()) << c_literal(reply) << ": " << whole.problems.front();
    ASSERT_EQ(whole.directives.size(), 2u) << c_literal(reply);
    EXPECT_EQ(whole.directives[1].action, "say");
    EXPECT_EQ(whole.directives[1].span_end, whole.directives[0].span_end) << c_literal(reply);
    int differing = 0;
    for_each_chunking_near_end(reply.size(), 8, [&](const std::vector<std::size_t>& sizes) {
      const EventLog chunked = run_events(reply, say, sizes);
      std::string diff = first_difference(whole, chunked);
      if (diff.empty() && !chunked.problems.empty()) diff = chunked.problems.front();
      if (!diff.empty() && ++differing <= 3)
        ADD_FAILURE() << c_literal(reply) << " in chunks " << describe_chunks(sizes) << ": " << diff;
    });
    EXPECT_EQ(differing, 0) << c_literal(reply);
  }
}

}  // namespace

// ------------------------------------------------------------------------------------------------ known bugs
// Minimal reproducers of parser bugs these properties found, disabled until the parser's owner fixes them.
namespace {

// BUG: the silence event's offset depends on chunking (events.h promises the same silence events for any
// chunking). Parser::Impl::poll_silence() reports input_offset(pos_), but consume() advances pos_ only after
// emit_text() of a whole bulk run, so a sentinel line decided inside a run gets the run's start: 0 when the
// reply is fed whole, 10 byte by byte, 8 in 4-byte chunks.
TEST(PropertyRegression, SilenceOffsetIsChunkIndependent) {
  for (const std::string reply : {"**NO_REPLY**", "NO_REPLY - busy\nmore text here"}) {
    const EventLog whole = run_events(reply, {}, {});
    for (std::size_t n : {1, 4}) {
      const EventLog chunked = run_events(reply, {}, fixed_chunking(reply.size(), n));
      EXPECT_EQ(whole.events, chunked.events) << c_literal(reply) << " in chunks of " << n;
    }
  }
}

}  // namespace
