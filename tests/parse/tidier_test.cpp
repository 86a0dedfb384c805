// Tidier (spec 10.1, 10.3, 11.2, 11.3): every cleantext vector as the call sequence the recognizer makes,
// under many chunkings, plus streaming properties on random inputs.
//
// Notation: an input is the reply with each removed piece of markup replaced by one marker byte:
// '\x01' = a removed directive (GapKind::Directive), '\x02' = any other removal (GapKind::Other).
#include "sigil/parse/tidier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/text/unicode.h"
#include "support/expect_each.h"
#include "support/text_recorder.h"

namespace sigil::parse {
namespace {

constexpr char D = '\x01';
constexpr char O = '\x02';

using Recorder = test::TextRecorder;

struct Result {
  std::string text;
  std::vector<std::uint64_t> emitted_at_gaps;   // emitted() right before each gap()
  std::vector<std::size_t> emitted_after_text;  // emitted() after each whole text segment
  std::size_t max_held = 0;
  std::uint64_t settled = 0;  // Tidier::settled() at the end
};

// Splits text segments into pieces: size k, or random sizes 1..16 when k == 0.
// A random reply: 1 to `max_tokens` tokens drawn from `tokens`.
std::string random_reply(std::mt19937& rng, const std::vector<std::string>& tokens, unsigned max_tokens) {
  std::string input;
  const unsigned n = 1 + static_cast<unsigned>(rng() % max_tokens);
  for (unsigned j = 0; j < n; ++j) input += tokens[rng() % tokens.size()];
  return input;
}

Result run(std::string_view input, std::size_t k, std::uint32_t seed = 1, std::size_t limit = 4096,
           bool settle = true) {
  Recorder sink;
  Tidier t(sink, limit);
  t.settle_in_bulk(settle);
  Result r;
  std::mt19937 rng(seed);
  std::string segment;
  auto feed = [&] {
    for (std::size_t i = 0; i < segment.size();) {
      std::size_t n = k != 0 ? k : 1 + rng() % 16;
      n = std::min(n, segment.size() - i);
      t.text(std::string_view(segment).substr(i, n));
      EXPECT_EQ(t.emitted(), sink.text.size());
      r.max_held = std::max(r.max_held, t.held_bytes());
      i += n;
    }
    r.emitted_after_text.push_back(t.emitted());
    segment.clear();
  };
  for (char c : input) {
    if (c == D || c == O) {
      feed();
      r.emitted_at_gaps.push_back(t.emitted());
      t.gap(c == D ? GapKind::Directive : GapKind::Other);
      r.max_held = std::max(r.max_held, t.held_bytes());
    } else {
      segment.push_back(c);
    }
  }
  feed();
  t.finish();
  EXPECT_EQ(t.emitted(), sink.text.size());
  EXPECT_EQ(t.held_bytes(), 0u);
  r.text = sink.text;
  r.settled = t.settled();
  return r;
}

// Whole, 1, 2, 3, 7 bytes and random pieces: same text, same emitted() at every gap and after every
// text segment, bounded holding.
void expect_clean(std::string_view input, std::string_view expected, std::size_t limit = 4096) {
  const Result whole = run(input, std::string_view::npos, 1, limit);
  EXPECT_EQ(whole.text, expected) << "whole";
  for (std::size_t k : {1, 2, 3, 7}) {
    const Result r = run(input, k, 1, limit);
    EXPECT_EQ(r.text, expected) << "chunk " << k;
    EXPECT_EQ(r.emitted_at_gaps, whole.emitted_at_gaps) << "chunk " << k;
    EXPECT_EQ(r.emitted_after_text, whole.emitted_after_text) << "chunk " << k;
    EXPECT_LE(r.max_held, limit + 32) << "chunk " << k;
  }
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    const Result r = run(input, 0, seed, limit);
    EXPECT_EQ(r.text, expected) << "random seed " << seed;
    EXPECT_EQ(r.emitted_at_gaps, whole.emitted_at_gaps) << "random seed " << seed;
    EXPECT_EQ(r.emitted_after_text, whole.emitted_after_text) << "random seed " << seed;
  }
}

struct Vector {
  const char* id;
  std::string input;
  std::string expected;
};

// All 60 vectors of cleantext.jsonl, each reply translated by hand into the text and gaps the recognizer
// produces for it.
std::vector<Vector> cleantext_vectors() {
  const std::string spaces(5000, ' ');
  return {
      {"cleantext-001", "Start \x01 Middle", "Start Middle"},
      {"cleantext-002", "Start   \x01   Middle", "Start Middle"},
      {"cleantext-003",
       "A\x01"
       "B",
       "AB"},
      {"cleantext-004",
       "A \x01"
       "B",
       "A B"},
      {"cleantext-005", "A\n\n\x02\x01\x02\n\nB", "A\n\nB"},  // <actions> <react/> </actions>
      {"cleantext-006", "A\n\x01\nB", "A\nB"},
      {"cleantext-007", "A\n\x01\n\nB", "A\n\nB"},
      {"cleantext-008", "A\n\n\n\x01\n\n\nB", "A\n\nB"},
      {"cleantext-009", "A\n\n\n\nB", "A\n\n\n\nB"},
      {"cleantext-010", "Para one.\n\n\x01\n\nPara two.", "Para one.\n\nPara two."},
      {"cleantext-011", "A\n\n\x01\n\n\x01\n\nB", "A\n\nB"},
      {"cleantext-012", "Line one\n\x01\n\x01\nLine two", "Line one\nLine two"},
      {"cleantext-013", "A \x01\x01 B", "A B"},
      {"cleantext-014", "A \x01 \x01 B", "A B"},
      {"cleantext-015", "\x01 Hello", "Hello"},
      {"cleantext-016", "\x01\nHello", "Hello"},
      {"cleantext-017", "Hello \x01", "Hello"},
      {"cleantext-018", "\x01\n\nHello\n\n\x01", "Hello"},
      {"cleantext-019", "Hello\n\n\x02\n  \x01\n  \x01\n\x02", "Hello"},
      {"cleantext-020", "\x01", ""},
      {"cleantext-021", "  \n\n  Hello there  \n\n ", "Hello there"},
      {"cleantext-022", "", ""},
      {"cleantext-023", "   \n\t  ", ""},
      {"cleantext-024", "Tom &amp; Jerry <3", "Tom &amp; Jerry <3"},
      {"cleantext-025", "The answer is \x01.", "The answer is."},  // inline action not run
      {"cleantext-026", "Caf\xC3\xA9 \xE2\x98\x95 \x01 ok \xF0\x9F\x98\x80",
       "Caf\xC3\xA9 \xE2\x98\x95 ok \xF0\x9F\x98\x80"},
      {"cleantext-027", "Thanks! \x01\nMore", "Thanks!\nMore"},
      {"cleantext-028", "A\n\x01 B", "A\nB"},
      {"cleantext-029", "A\n  \x01  \nB", "A\nB"},
      {"cleantext-030", "Done.\t\x01\nNext", "Done.\nNext"},
      {"cleantext-031", "Hi \x02 there", "Hi there"},  // orphan </say>
      {"cleantext-032", "A\r\n\x01\r\nB", "A\r\nB"},
      {"cleantext-033", "A\r\n\r\n\x01\r\n\r\nB", "A\r\n\r\nB"},
      {"cleantext-034", "Line one\r\nLine two \x01\r\nLine three", "Line one\r\nLine two\r\nLine three"},
      {"cleantext-035", "A\n\x01\r\nB\r\nC", "A\nB\r\nC"},
      {"cleantext-036", "A\n\x02\nB", "A\nB"},  // comment
      {"cleantext-037", "One \x01  \n  \x01 two", "One\ntwo"},
      {"cleantext-038", "Line with a hard break  \n\x01\nNext", "Line with a hard break  \nNext"},
      {"cleantext-039", "Noted! **\x01**", "Noted!"},
      {"cleantext-040", "Sure _\x01_ thing", "Sure thing"},
      {"cleantext-041", "Done ~~ \x01 ~~", "Done ~~ ~~"},
      {"cleantext-042", "Ok * \x01 * fine", "Ok * * fine"},
      {"cleantext-043", "Great!\n**\x01**\nNext", "Great!\nNext"},
      {"cleantext-044", "**Yes\x01**", "**Yes**"},
      {"cleantext-045", "Rule: ** ** stays \x01", "Rule: ** ** stays"},
      {"cleantext-046", "Wow ***\x01***", "Wow"},
      {"cleantext-047", "Done ~~\x01~~ next", "Done next"},
      {"cleantext-048", "Done **\x02**", "Done ****"},  // a comment is no directive
      {"cleantext-049", "**Yes \x01**", "**Yes **"},
      {"cleantext-050", "A" + spaces + "\x01\nB", "A" + spaces + "\nB"},
      {"cleantext-051", "I'll remember that \x01.", "I'll remember that."},
      {"cleantext-052", "Really \x01?", "Really?"},
      {"cleantext-053", "(see \x01 )", "(see)"},
      {"cleantext-054", "Steps:\n- \x01\n- Water the plants", "Steps:\n- Water the plants"},
      {"cleantext-055", "1. \x01\n2. Next", "2. Next"},
      {"cleantext-056", "1) \x01\n2) Next", "2) Next"},
      {"cleantext-057", "**bold**\x01**more**", "**bold****more**"},
      {"cleantext-058", "Done!**\x01**", "Done!"},
      {"cleantext-059", "Ok ****\x01****", "Ok ********"},
      {"cleantext-060", "Say **\x01**now", "Say ****now"},
  };
}

TEST(Tidier, CleantextVectorsAnyChunking) {
  const auto vectors = cleantext_vectors();
  ASSERT_EQ(vectors.size(), 60u);
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.id);
    expect_clean(v.input, v.expected);
  }
}

// Rules the vectors leave to the implementation (documented in tidier.h).
TEST(Tidier, MoreRules) {
  const std::vector<test::TextCase> cases = {
      // Runs are taken only by a gap group that holds a directive; a comment next to it does not matter.
      {"Done **\x02\x01** now", "Done now"},
      {"Done **\x01\x02** now", "Done now"},
      // The run after must have the same length.
      {"Ok **\x01*** x", "Ok ***** x"},
      {"Ok **\x01* x", "Ok *** x"},
      // Different characters are no pair.
      {"Ok **\x01__ x", "Ok **__ x"},
      // Punctuation, also non-ASCII, around the runs.
      {"(**\x01**)", "()"},
      {"\xE2\x80\x9C**\x01**\xE2\x80\x9D", "\xE2\x80\x9C\xE2\x80\x9D"},
      {"x**\x01**y", "x****y"},
      {"a **\x01**\xC3\xA9", "a ****\xC3\xA9"},
      // A run after a gap may be emphasis for the next directive.
      {"A \x02**\x01** B", "A B"},
      {"A \x02 **\x01**now", "A ****now"},
      // Closing punctuation after blanks only on the left.
      {"Hi \x01, there", "Hi, there"},
      {"Hi \x01\t)", "Hi)"},
      // CRLF is a line break; a lone CR is a blank.
      {"A\rB \x01 C", "A\rB C"},
      {"A \x01\r\nB", "A\r\nB"},
      {"A \x01\rB", "A B"},
      {"A\r", "A"},
      {"A\r \t", "A"},
      {"\r-\r\x01\r\nB", "B"},
      // Lines holding a marker or digits that no gap touched stay; with a gap they go.
      {"A\n-\nB", "A\n-\nB"},
      {"A\n12\nB", "A\n12\nB"},
      {"A\n12 \x01\nB", "A\n12\nB"},
      {"A\n12. \x01\nB", "A\nB"},
      {"A\n  * \x01\nB", "A\nB"},
      {"A\n  + \x01  \r\nB", "A\nB"},
      {"A\n1234567890. \x01\nB", "A\n1234567890.\nB"},
      {"A\n- x \x01\nB", "A\n- x\nB"},
      {"A\n\x01 - \x01\nB", "A\nB"},
      // Blank lines merge into the first of them, kept as written.
      {"A\n \n\t\n\x01\n\nB", "A\n \nB"},
      {"A\n\n\x01\n\n\x02\n\n\nB\n\n\nC", "A\n\nB\n\n\nC"},
      // Removed last lines and trailing whitespace.
      {"A\n\n\x01", "A"},
      {"A\n- \x01", "A"},
      {"A\n-", "A\n-"},
      {"A\n**", "A\n**"},
      {"A **", "A **"},
      {"A **\x01", "A **"},
      // Leading whitespace and leading removed lines.
      {"\x02\n\n\x01\n  Hello", "Hello"},
      {"\n\n- \x01\n1. one", "1. one"},
      {"  - item", "- item"},
  };
  for (const test::TextCase& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.in));
    expect_clean(c.in, c.want);
  }
}

TEST(Tidier, WhitespaceLimit) {
  // A run over the limit is released as written, with the rest of it, and its line stays.
  expect_clean("A" + std::string(20, ' ') + "\x01\nB", "A" + std::string(20, ' ') + "\nB", 8);
  expect_clean("A" + std::string(8, ' ') + "\x01\nB", "A\nB", 8);
  expect_clean("A\n" + std::string(20, ' ') + "\x01\nB", "A\n" + std::string(20, ' ') + "\nB", 8);
  expect_clean("A" + std::string(20, '\n') + "B", "A" + std::string(20, '\n') + "B", 8);
  expect_clean("A" + std::string(20, '\n') + "\x01\nB", "A" + std::string(21, '\n') + "B", 8);
  expect_clean("A\n\n\x01\n\nB", "A\n\nB", 8);
  // Exactly at the default limit it is still tidied.
  expect_clean("A" + std::string(4096, ' ') + "\x01\nB", "A\nB");
  expect_clean("A" + std::string(4097, ' ') + "\x01\nB", "A" + std::string(4097, ' ') + "\nB");
}

TEST(Tidier, EmitsEagerly) {
  Recorder sink;
  Tidier t(sink);
  t.text("Hello wor");
  EXPECT_EQ(sink.text, "Hello wor");
  t.text("ld  ");
  EXPECT_EQ(sink.text, "Hello world");  // trailing blanks may meet a gap
  t.gap(GapKind::Directive);
  t.text(" there **");
  EXPECT_EQ(sink.text, "Hello world there");  // the run may be emphasis for the next directive
  t.text("x");
  EXPECT_EQ(sink.text, "Hello world there **x");
  t.text("\n\n");
  EXPECT_EQ(sink.text, "Hello world there **x");  // line breaks may be trailing or merge
  t.text("- ");
  EXPECT_EQ(sink.text, "Hello world there **x");  // a line holding only a marker may still go
  t.text("item");
  EXPECT_EQ(sink.text, "Hello world there **x\n\n- item");
  t.finish();
  EXPECT_EQ(sink.text, "Hello world there **x\n\n- item");
}

TEST(Tidier, BulkPassesProseInFewCalls) {
  std::string prose;
  const std::string sentence = "The quick brown fox, caf\xC3\xA9 \xE2\x80\xA6 jumps over *the* lazy dog.\n";
  while (prose.size() < (1u << 20)) prose += sentence;
  Recorder sink;
  Tidier t(sink);
  std::size_t pieces = 0;
  for (std::size_t i = 0; i < prose.size(); i += 4096, ++pieces)
    t.text(std::string_view(prose).substr(i, 4096));
  t.finish();
  EXPECT_EQ(sink.text, prose.substr(0, prose.size() - 1));  // trailing newline trimmed
  EXPECT_LE(sink.calls, 3 * pieces);
}

// Random replies over a small alphabet that hits every rule: every chunking gives the same text and the
// same emitted() at every gap; without gaps the text is the input trimmed; holding stays bounded.
TEST(Tidier, RandomInputsAnyChunking) {
  const std::vector<std::string> tokens = {
      "a",
      "b",
      "x y",
      "\xC3\xA9",
      "\xE2\x80\xA6",
      "\xF0\x9F\x91\x8D",
      " ",
      " ",
      "  ",
      "\t",
      "\n",
      "\n",
      "\r\n",
      "\r",
      "*",
      "**",
      "_",
      "~~",
      "-",
      "1.",
      "2)",
      ".",
      ",",
      ")",
      "?",
      "\x01",
      "\x01",
      "\x02",
      "\n\n",
      "  -",
      "12",
      "3.",
      "`",
      "\x01\n",
      "\n\x02",
      "\x01**",
      "**\x01",
  };
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens, 40);
    const std::size_t limit = iter % 3 == 0 ? 6 : 4096;
    SCOPED_TRACE(testing::PrintToString(input));
    const Result whole = run(input, std::string_view::npos, 1, limit);
    const std::string& text = whole.text;
    if (!text.empty()) {
      EXPECT_EQ(text.find_first_not_of(" \t\r\n"), 0u);
      if (limit == 4096) {
        EXPECT_EQ(text.find_last_not_of(" \t\r\n"), text.size() - 1);
      }
    }
    if (input.find_first_of("\x01\x02") == std::string::npos && limit == 4096) {
      const std::size_t b = input.find_first_not_of(" \t\r\n");
      const std::size_t e = input.find_last_not_of(" \t\r\n");
      EXPECT_EQ(text, b == std::string::npos ? "" : input.substr(b, e + 1 - b));
    }
    for (std::size_t k : {1, 2, 3}) {
      const Result r = run(input, k, 1, limit);
      ASSERT_EQ(r.text, text) << "chunk " << k;
      ASSERT_EQ(r.emitted_at_gaps, whole.emitted_at_gaps) << "chunk " << k;
      ASSERT_EQ(r.emitted_after_text, whole.emitted_after_text) << "chunk " << k;
      ASSERT_LE(r.max_held, limit + 32);
    }
    const Result r = run(input, 0, iter, limit);
    ASSERT_EQ(r.text, text);
    ASSERT_EQ(r.emitted_at_gaps, whole.emitted_at_gaps);
  }
}

// Feeds `input` as one text() call per stretch between gap markers (so each stretch's whitespace can go in
// bulk), then finishes.
void feed_between_gaps(Tidier& t, const std::string& input) {
  for (std::size_t i = 0; i < input.size();) {
    const std::size_t e = std::min(input.find_first_of("\x01\x02", i), input.size());
    t.text(std::string_view(input).substr(i, e - i));
    if (e < input.size()) t.gap(input[e] == D ? GapKind::Directive : GapKind::Other);
    i = e + 1;
  }
  t.finish();
}

// A whitespace run too long for the limit is refused once and stepped: blank_run never looks at a byte twice
// (it once rescanned the rest of a megabyte of spaces at every byte, quadratic).
TEST(Tidier, BlankRunLooksAtEachByteOnce) {
  for (const std::size_t limit : {std::size_t{16}, std::size_t{4096}}) {
    const std::string spaces(256 * 1024, ' ');
    for (const std::string& input : {"x" + spaces + "y", "x" + spaces, spaces + "\n" + spaces + "y"}) {
      Recorder sink;
      Tidier t(sink, limit);
      t.text(input);
      t.finish();
      EXPECT_LE(t.blank_scanned(), input.size()) << "limit " << limit;
      EXPECT_EQ(sink.text, run(input, 1, 1, limit).text) << "limit " << limit;
    }
  }
}

// Whitespace between removed tags is taken in bulk (Tidier::blank_run) and must come out as stepping each
// byte gives it: whitespace-heavy random replies with gaps, emphasis, list markers and CRs, fed whole and
// byte by byte (a one-byte piece is always stepped), and at a whitespace limit small enough to be reached.
TEST(Tidier, BlankRunsEqualStepping) {
  const std::vector<std::string> tokens = {" ", "  ", "\t", "\n", "\n  ", "\n\n", "\r\n", "\r",   "x",
                                           "*", "**", "-",  "1.", ".",    "\x01", "\x01", "\x02", "\n\t\x01"};
  std::mt19937 rng(777);
  std::uint64_t bulk = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens, 50);
    const std::size_t limit = iter % 4 == 0 ? 1 + rng() % 12 : 4096;
    SCOPED_TRACE(testing::PrintToString(input) + " limit " + std::to_string(limit));
    const Result stepped = run(input, 1, 1, limit);
    const Result whole = run(input, std::string_view::npos, 1, limit);
    ASSERT_EQ(whole.text, stepped.text);
    ASSERT_EQ(whole.emitted_at_gaps, stepped.emitted_at_gaps);
    ASSERT_EQ(whole.emitted_after_text, stepped.emitted_after_text);
    Recorder sink;
    Tidier t(sink, limit);
    feed_between_gaps(t, input);
    ASSERT_EQ(sink.text, stepped.text);
    bulk += t.blank_runs();
  }
  EXPECT_GT(bulk, 3000u);  // the bulk path was taken, not only stepping

  // The shape of case (b): reacts on their own lines in an actions block, each gap's whitespace one run.
  std::string input = "Sure.\n\x02";
  for (int k = 0; k < 5; ++k) input += "\n  \x01";
  input += "\n\x02\n\nMore.";
  const Result stepped = run(input, 1);
  const Result whole = run(input, std::string_view::npos);
  EXPECT_EQ(whole.text, stepped.text);
  EXPECT_EQ(whole.text, "Sure.\n\nMore.");
  Recorder sink;
  Tidier t(sink);
  t.text("Sure.\n");
  t.gap(GapKind::Other);
  for (int k = 0; k < 5; ++k) {
    t.text("\n  ");
    t.gap(GapKind::Directive);
  }
  t.text("\n");
  t.gap(GapKind::Other);
  t.text("\n\nMore.");
  t.finish();
  EXPECT_EQ(sink.text, stepped.text);
  EXPECT_EQ(t.blank_runs(), 6u);  // "\n  " five times and "\n\n"; a lone "\n" is stepped
  // The lines `  <react/>` emptied by the gaps go without normal_newline(): four of the five "\n  " runs
  // end such a line (the first ends the `<actions>` line, emptied too), and "\n\n" the last.
  EXPECT_EQ(t.emptied_lines(), 6u);
}

// blanks() (the recognizer's blanks between removed tags) against text() of the same bytes: random replies
// whose whitespace runs are fed through blanks() to one tidier and text() to another, the same text and
// emitted() after every call. blanks() takes a run in one pass without looking for its end (blank_scanned()
// does not move) whenever blank_run() would take all of it.
TEST(Tidier, BlanksEqualText) {
  const std::vector<std::string> tokens = {" ",  "  ", "\t", "\n", "\n  ", "\n\n", "\r\n", "\r", "x", "*",
                                           "**", "-",  "1.", ".",  "\x01", "\x01", "\x02", "é",  "_"};
  std::mt19937 rng(5150);
  std::uint64_t one_pass = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens, 50);
    const std::size_t limit = iter % 4 == 0 ? 1 + rng() % 12 : 4096;
    SCOPED_TRACE(testing::PrintToString(input) + " limit " + std::to_string(limit));
    Recorder a_sink, b_sink;
    Tidier a(a_sink, limit), b(b_sink, limit);
    for (std::size_t i = 0; i < input.size();) {
      const char c = input[i];
      if (c == D || c == O) {
        a.gap(c == D ? GapKind::Directive : GapKind::Other);
        b.gap(c == D ? GapKind::Directive : GapKind::Other);
        ++i;
        continue;
      }
      std::size_t e = i;
      const bool blank = c == ' ' || c == '\t' || c == '\n';
      while (e < input.size() && input[e] != D && input[e] != O &&
             (input[e] == ' ' || input[e] == '\t' || input[e] == '\n') == blank)
        ++e;
      const std::string_view piece = std::string_view(input).substr(i, e - i);
      if (blank) {
        const std::uint64_t runs = b.blank_runs(), scanned = b.blank_scanned();
        b.blanks(piece);
        if (b.blank_scanned() == scanned && b.blank_runs() == runs + 1) ++one_pass;
      } else {
        b.text(piece);
      }
      a.text(piece);
      ASSERT_EQ(a.emitted(), b.emitted());
      ASSERT_EQ(a.held_bytes(), b.held_bytes());
      i = e;
    }
    a.finish();
    b.finish();
    ASSERT_EQ(a_sink.text, b_sink.text);
  }
  EXPECT_GT(one_pass, 3000u);
}

// The emptied-line shortcut in blank_run against normal_newline(): the same random replies of case (b)'s
// shape (blank lines, list markers, gaps, text), whole (the shortcut) and byte by byte (never taken).
TEST(Tidier, EmptiedLinesInBulkEqualStepping) {
  const std::vector<std::string> tokens = {"\n  ", "\n", "\n\n", "  ", "\x01",
                                           "\x02", "- ", "x",    "\t", "\n\t\x01"};
  std::mt19937 rng(4242);
  std::uint64_t emptied = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens, 40);
    const std::size_t limit = iter % 5 == 0 ? 1 + rng() % 10 : 4096;
    SCOPED_TRACE(testing::PrintToString(input) + " limit " + std::to_string(limit));
    const Result stepped = run(input, 1, 1, limit);
    Recorder sink;
    Tidier t(sink, limit);
    feed_between_gaps(t, input);
    ASSERT_EQ(sink.text, stepped.text);
    emptied += t.emptied_lines();
  }
  EXPECT_GT(emptied, 3000u);  // the shortcut was taken
}

// A sink that checks the masks it is given against its bytes.
class MaskChecker final : public TextSink {
 public:
  void clean_text(std::string_view bytes) override { text.append(bytes); }
  void clean_run(std::string_view bytes, const text::stage1::MaskView& masks) override {
    if (masks) {
      ++with_masks;
      EXPECT_EQ(masks.size(), bytes.size());
      const std::size_t at = masks.find(text::stage1::kNewlines, 0);
      EXPECT_EQ(at, std::min(bytes.find('\n'), bytes.size()));
    }
    text.append(bytes);
  }
  std::string text;
  std::size_t with_masks = 0;
};

// The streaming fast path (a piece plain from its start goes on with its masks in one call) against the
// general one: random texts with gaps, fed in random pieces with stage 1's masks, give the text that
// whole pieces without masks give; and prose in 16-byte pieces takes the fast path for most pieces.
TEST(Tidier, DirectRunsWithMasksEqualTheGeneralPath) {
  const std::vector<std::string> tokens = {"word", "b",  " ", "  ",       "\n", "\n\n", "\r\n", "*",    "**",
                                           "-",    "1.", ",", "\xC3\xA9", "`",  "\x01", "\x02", "x y z"};
  std::mt19937 rng(4242);
  std::vector<text::stage1::BlockMasks> masks;
  for (int iter = 0; iter < 2000; ++iter) {
    const std::string input = random_reply(rng, tokens, 60);
    SCOPED_TRACE(testing::PrintToString(input));
    const Result whole = run(input, std::string_view::npos);
    MaskChecker sink;
    Tidier t(sink);
    std::string segment;
    auto feed = [&] {
      for (std::size_t i = 0; i < segment.size();) {
        const std::size_t len = std::min<std::size_t>(1 + rng() % 24, segment.size() - i);
        const std::string_view piece = std::string_view(segment).substr(i, len);
        masks.resize(text::stage1::blocks_for(len));
        text::stage1::scan(piece, masks.data());
        t.text(piece, text::stage1::MaskView(masks.data(), 0, len));
        i += len;
      }
      segment.clear();
    };
    for (char c : input) {
      if (c == D || c == O) {
        feed();
        t.gap(c == D ? GapKind::Directive : GapKind::Other);
      } else {
        segment.push_back(c);
      }
    }
    feed();
    t.finish();
    ASSERT_EQ(sink.text, whole.text);
  }
  std::string prose;
  while (prose.size() < 4096) prose += "The quick brown fox, caf\xC3\xA9, jumps over the lazy dog. ";
  MaskChecker sink;
  Tidier t(sink);
  std::size_t pieces = 0;
  for (std::size_t i = 0; i < prose.size(); i += 16, ++pieces) {
    const std::string_view piece = std::string_view(prose).substr(i, 16);
    masks.resize(1);
    text::stage1::scan(piece, masks.data());
    t.text(piece, text::stage1::MaskView(masks.data(), 0, piece.size()));
  }
  t.finish();
  EXPECT_EQ(sink.text, prose.substr(0, prose.size() - 1));
  EXPECT_GE(t.direct_runs(), pieces / 2) << pieces << " pieces";
  EXPECT_GE(sink.with_masks, t.direct_runs() + t.joined_runs());  // a lead run has masks when they cover it
  EXPECT_LE(sink.with_masks, t.direct_runs() + t.joined_runs() + t.lead_runs());
}

// The byte after a gap (or after held trailing blanks) settles what is held without step() and the text from
// it goes in bulk (Tidier::settle). Against stepping it (settle_in_bulk(false)): random replies of gaps,
// blanks, closing punctuation, emphasis, list markers, CRs and UTF-8, whole, in random pieces and byte by
// byte, at small whitespace limits too: the same text and the same emitted() at every gap and after every
// segment.
TEST(Tidier, SettledBytesEqualStepping) {
  const std::vector<std::string> tokens = {
      "word", "b",    " ",     "  ",    "\n",    "\n\n",     "\r\n",         "\r", "*",    "**",
      "-",    "1.",   ",",     ".",     ")",     "\xC3\xA9", "\xE2\x80\xA6", "`",  "\x01", "\x01",
      "\x02", "\x02", " \x02", "\x01 ", "x y z", "\t"};
  std::mt19937 rng(9191);
  std::uint64_t settled = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens, 50);
    const std::size_t limit = iter % 5 == 0 ? 1 + rng() % 12 : 4096;
    SCOPED_TRACE(testing::PrintToString(input) + " limit " + std::to_string(limit));
    for (const std::size_t k : {std::string_view::npos, std::size_t{0}, std::size_t{1}}) {
      const Result off = run(input, k, static_cast<std::uint32_t>(iter), limit, false);
      const Result on = run(input, k, static_cast<std::uint32_t>(iter), limit, true);
      ASSERT_EQ(off.settled, 0u);
      ASSERT_EQ(on.text, off.text) << "chunk " << k;
      ASSERT_EQ(on.emitted_at_gaps, off.emitted_at_gaps) << "chunk " << k;
      ASSERT_EQ(on.emitted_after_text, off.emitted_after_text) << "chunk " << k;
      ASSERT_LE(on.max_held, limit + 32);
      settled += on.settled;
    }
  }
  EXPECT_GT(settled, 10000u);  // the path was taken, not only stepping

  // The shape of case (d): text after a removed wrapper tag, and a released body after held blanks.
  Recorder sink;
  Tidier t(sink);
  t.text("One two ");
  t.gap(GapKind::Other);
  t.text("three four ");
  t.text("<voice>five six");
  t.gap(GapKind::Other);
  t.text(", seven");
  t.finish();
  EXPECT_EQ(sink.text, "One two three four <voice>five six, seven");
  EXPECT_EQ(t.settled(), 3u);  // `t` after the gap, `<` after the held blank, `,` after the gap
}

// Blanks that settle() released and the plain run after them, passed on together with masks of none
// (Tidier::join_in_bulk) against gathering them for a call without masks (off): random replies of words,
// blanks, gaps, punctuation, emphasis, code, markup characters and UTF-8 in random pieces with stage 1's
// masks give the same text and the same emitted() after every piece and at every gap; every mask the sink
// gets matches its bytes (MaskChecker); and 16-byte pieces of prose take the path.
TEST(Tidier, JoinedRunsEqualGathering) {
  const std::vector<std::string> tokens = {
      "word", "b", " ", "  ", "\t",   "\n",   "\r",    "*",     "**",  "-",  ",",           "\xC3\xA9",
      "`",    "<", "[", "\"", "\x01", "\x02", " \x02", "\x01 ", "x y", ". ", "\xE2\x80\xA6"};
  std::mt19937 rng(5150);
  std::vector<text::stage1::BlockMasks> masks;
  std::uint64_t joined = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens, 50);
    SCOPED_TRACE(testing::PrintToString(input));
    std::vector<std::size_t> cuts;
    for (std::size_t i = 0; i < input.size(); i += 1 + rng() % 24) cuts.push_back(i);
    std::string texts[2];
    std::vector<std::uint64_t> emitted[2];
    for (const bool on : {false, true}) {
      MaskChecker sink;
      Tidier t(sink);
      t.join_in_bulk(on);
      std::string segment;
      auto feed = [&] {
        if (segment.empty()) return;
        const std::string_view piece = segment;
        masks.resize(text::stage1::blocks_for(piece.size()));
        text::stage1::scan(piece, masks.data());
        t.text(piece, text::stage1::MaskView(masks.data(), 0, piece.size()));
        emitted[on].push_back(t.emitted());
        segment.clear();
      };
      std::size_t next = 0;
      for (std::size_t i = 0; i < input.size(); ++i) {
        if (next < cuts.size() && cuts[next] == i) {
          feed();
          ++next;
        }
        const char c = input[i];
        if (c == D || c == O) {
          feed();
          t.gap(c == D ? GapKind::Directive : GapKind::Other);
          emitted[on].push_back(t.emitted());
        } else {
          segment.push_back(c);
        }
      }
      feed();
      t.finish();
      texts[on] = sink.text;
      if (on)
        joined += t.joined_runs();
      else
        ASSERT_EQ(t.joined_runs(), 0u);
    }
    ASSERT_EQ(texts[1], texts[0]);
    ASSERT_EQ(emitted[1], emitted[0]);
  }
  EXPECT_GT(joined, 500u);  // the path was taken

  // Prose in 16-byte pieces: a piece after one that ended in a blank starts with the settled blank.
  std::string prose;
  while (prose.size() < 4096) prose += "The quick brown fox jumps over the lazy dog and runs far away. ";
  MaskChecker sink;
  Tidier t(sink);
  std::size_t after_blank = 0;
  for (std::size_t i = 0; i < prose.size(); i += 16) {
    const std::string_view piece = std::string_view(prose).substr(i, 16);
    masks.resize(1);
    text::stage1::scan(piece, masks.data());
    after_blank += i > 0 && prose[i - 1] == ' ' && piece.front() != ' ' ? 1 : 0;
    t.text(piece, text::stage1::MaskView(masks.data(), 0, piece.size()));
  }
  t.finish();
  EXPECT_EQ(sink.text, prose.substr(0, prose.size() - 1));
  EXPECT_GT(after_blank, 20u);
  EXPECT_EQ(t.joined_runs(), after_blank);
  EXPECT_GE(sink.with_masks, t.direct_runs() + t.joined_runs());  // a lead run has masks when they cover it
  EXPECT_LE(sink.with_masks, t.direct_runs() + t.joined_runs() + t.lead_runs());
}

// After a piece passed on in bulk, what came last decides whether an emphasis run right after it may go with
// a directive (resync(): an ASCII last byte by a table, a code point ending there by decoding it). For every
// plain ASCII byte c, and for code points that are punctuation or not: `ab` c, then `**`, a removed
// directive and `** end`. The runs go with the directive exactly when c is punctuation (text::is_punctuation,
// not the tidier's table), and the piece before them went on directly, with its masks.
TEST(Tidier, ContextAfterDirectRunsFollowsTheLastCodePoint) {
  std::vector<std::string> lasts;
  for (int c = 0x21; c < 0x7F; ++c)
    if (c != '*' && c != '_' && c != '~') lasts.emplace_back(1, static_cast<char>(c));
  lasts.insert(lasts.end(), {"\xC3\xA9", "\xE2\x80\xA6", "\xC2\xBF", "\xF0\x9F\x91\x8D", "\xE2\x80\x94"});
  std::vector<text::stage1::BlockMasks> masks(1);
  std::size_t punct = 0;
  for (const std::string& last : lasts) {
    SCOPED_TRACE(testing::PrintToString(last));
    for (const bool split : {false, true}) {  // the last code point whole in the piece, or cut by the next
      Recorder sink;
      Tidier t(sink);
      t.text("Go");  // the clean text has started: a piece may pass on directly
      const std::string piece = "ab" + last;
      const std::size_t cut = split && last.size() > 1 ? piece.size() - 1 : piece.size();
      text::stage1::scan(std::string_view(piece).substr(0, cut), masks.data());
      t.text(std::string_view(piece).substr(0, cut), text::stage1::MaskView(masks.data(), 0, cut));
      if (cut < piece.size()) t.text(std::string_view(piece).substr(cut));
      t.text("**");
      t.gap(GapKind::Directive);
      t.text("** end");
      t.finish();
      std::size_t len = 0;
      const bool is_punct = text::is_punctuation(text::decode_at(last, 0, &len));
      EXPECT_EQ(sink.text, is_punct ? "Go" + piece + " end" : "Go" + piece + "**** end") << "split " << split;
      // The rest of a cut code point comes without masks, first in its piece: passed on directly too.
      EXPECT_EQ(t.direct_runs(), cut < piece.size() ? 2u : 1u) << "split " << split;
      punct += is_punct ? 1 : 0;
    }
  }
  EXPECT_GT(punct, 20u);
}

TEST(Tidier, IgnoresInputAfterFinish) {
  Recorder sink;
  Tidier t(sink);
  t.text("Hi");
  t.finish();
  t.text(" more");
  t.gap(GapKind::Directive);
  t.finish();
  EXPECT_EQ(sink.text, "Hi");
}

}  // namespace
}  // namespace sigil::parse
