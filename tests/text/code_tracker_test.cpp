#include "sigil/text/code_tracker.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "support/stepped_states.h"

namespace sigil::text {
namespace {

bool is_markup(char c) { return c == '<' || c == '['; }

// in_code() just before each `<` and `[`, stepping byte by byte.
std::vector<bool> flags_bytewise(std::string_view in) {
  CodeTracker t;
  std::vector<bool> out;
  for (char c : in) {
    if (is_markup(c)) out.push_back(t.in_code());
    t.step(static_cast<unsigned char>(c));
  }
  return out;
}

// The same, the way a parser drives it: bulk feed() up to the next markup byte, ask, then step() it.
std::vector<bool> flags_bulk(std::string_view in) {
  CodeTracker t;
  std::vector<bool> out;
  std::size_t i = 0;
  while (i < in.size()) {
    std::size_t j = in.find_first_of("<[", i);
    if (j == std::string_view::npos) j = in.size();
    t.feed(in.substr(i, j - i));
    if (j == in.size()) break;
    out.push_back(t.in_code());
    t.step(static_cast<unsigned char>(in[j]));
    i = j + 1;
  }
  return out;
}

struct Case {
  const char* id;
  const char* input;
  std::vector<bool> in_code;  // for each `<` and `[` of input, in order
};

// Every vector of shared/conformance/code.jsonl. The flags are written from the vectors' expectations: a
// directive the vector does not run is in code (or, for a close tag, sits in code with its opener).
const Case kConformance[] = {
    {"code-001", "```\n<react emoji=\"👍\"/>\n```", {true}},
    {"code-002", "~~~\n[REMEMBER:x]\n<react emoji=\"👍\"/>\n~~~", {true, true}},
    {"code-003", "Example:\n   ```\n<react emoji=\"👍\"/>\n   ```", {true}},
    {"code-004", "Look:\n    ~~~\n<react emoji=\"👍\"/>\n    ~~~", {true}},
    {"code-005", "```xml\n<actions>\n  <react emoji=\"👍\"/>\n</actions>\n```", {true, true, true}},
    {"code-006", "~~~~ python\nprint('<react emoji=\"👍\"/>')\n~~~~", {true}},
    {"code-007", "```\ncode\n```\n<react emoji=\"👍\"/>", {false}},
    {"code-008", "Here:\n```\n<react emoji=\"👍\"/>\n[REMEMBER:x]", {true, true}},
    {"code-009", "```\n<react emoji=\"👍\"/>\n`````\nDone <react emoji=\"🎉\"/>", {true, false}},
    {"code-010", "````\n<react emoji=\"👍\"/>\n```\n<react emoji=\"🎉\"/>", {true, true}},
    {"code-011", "~~~\n```\n<react emoji=\"👍\"/>\n~~~\nAfter <react emoji=\"🎉\"/>", {true, false}},
    {"code-012", "Type `<react emoji=\"👍\"/>` to react.", {true}},
    {"code-013", "Use ``a`<react emoji=\"👍\"/>`` here.", {true}},
    {"code-014", "``x```<react emoji=\"👍\"/>``", {true}},
    {"code-015", "Run ```<react emoji=\"👍\"/>``` now.", {true}},
    {"code-016", "Code: `x` then <react emoji=\"👍\"/>", {false}},
    {"code-017", "Type `<react emoji=\"👍\"/>\nthen <react emoji=\"🎉\"/>", {true, false}},
    {"code-018", "Use `[REMEMBER:x]", {true}},
    {"code-019", "a `b\nc <react emoji=\"👍\"/>` d", {false}},
    {"code-020", "``\n<react emoji=\"👍\"/>", {false}},
    {"code-021", "~~strike~~ <react emoji=\"👍\"/>", {false}},
    {"code-022", "Write `[SEARCH:cats]` to search.", {true}},
    {"code-023", "```\nNO_REPLY\n```", {}},
    {"code-024", "```\n<think>x</think>\n```", {true, true}},
    {"code-025", "```\n<react emoji=\"👍\"/>\n  ```\n<react emoji=\"🎉\"/>", {true, false}},
    {"code-026", "```\n<react emoji=\"👍\"/>\n    ```\n<react emoji=\"🎉\"/>", {true, false}},
    {"code-027", "```\nx\n``` done\n<react emoji=\"🎉\"/>", {true}},
    {"code-028", "```\nx\n```  \t\nDone <react emoji=\"🎉\"/>", {false}},
    {"code-029", "Tab:\n\t```\n<react emoji=\"👍\"/>\n\t```\nEnd", {true}},
    {"code-030", "```\n<react emoji=\"👍\"/>\n\t```\n<react emoji=\"🎉\"/>", {true, false}},
    {"code-031", "```a`b\n<react emoji=\"👍\"/>\n```\n<react emoji=\"🎉\"/>", {true, false}},
    {"code-032", "~~~ a`b\n<react emoji=\"👍\"/>\n~~~\nAfter <react emoji=\"🎉\"/>", {true, false}},
    {"code-033", "> ```\n> <react emoji=\"👍\"/>\n> ```\nAfter <react emoji=\"🎉\"/>", {true, false}},
    {"code-034",
     "- Item\n\n      ```\n      <react emoji=\"👍\"/>\n      ```\nDone <react emoji=\"🎉\"/>",
     {true, false}},
    {"code-035", ">> ~~~\n>> [REMEMBER:x]\n>> ~~~", {true}},
    {"code-036", "Quote:\n> ```\n> <react emoji=\"👍\"/>", {true}},
    {"code-037", "1. ```bash\n   <react emoji=\"👍\"/>\n   ```\nDone <react emoji=\"🎉\"/>", {true, false}},
    {"code-038", "- ```\n[REMEMBER:x]\n```\nok [REMEMBER:y]", {true, false}},
    {"code-039", "* ~~~ python\nprint(\"<voice>hi</voice>\")\n~~~", {true, true}},
    {"code-040", "1) ```\n<no-reply/>\n```", {true}},
    {"code-041", "> - ```\n> [REMEMBER:x]\n> ```", {true}},
};

TEST(CodeTrackerConformance, EveryCodeVector) {
  for (const Case& c : kConformance) {
    SCOPED_TRACE(c.id);
    EXPECT_EQ(flags_bytewise(c.input), c.in_code);
    EXPECT_EQ(flags_bulk(c.input), c.in_code);
  }
}

// A line-at-a-time model of spec 1.2, written independently of the byte machine, to check it against.
std::size_t lead_end(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t>");
  if (i == std::string::npos) return line.size();
  std::size_t j = i;
  if (line[j] == '-' || line[j] == '*' || line[j] == '+') {
    ++j;
  } else if (std::isdigit(static_cast<unsigned char>(line[j]))) {
    while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    if (j == line.size() || (line[j] != '.' && line[j] != ')')) return i;
    ++j;
  } else {
    return i;
  }
  if (j == line.size() || (line[j] != ' ' && line[j] != '\t')) return i;
  return line.find_first_not_of(" \t", j) == std::string::npos ? line.size()
                                                               : line.find_first_not_of(" \t", j);
}

std::size_t run_at(const std::string& line, std::size_t i, char c) {
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == c) ++n;
  return n;
}

std::vector<bool> reference_flags(const std::string& in) {
  std::vector<bool> out;
  char fence_char = 0;
  std::size_t fence_len = 0;
  std::size_t start = 0;
  while (start <= in.size()) {
    std::size_t end = in.find('\n', start);
    if (end == std::string::npos) end = in.size();
    const std::string line = in.substr(start, end - start);
    const std::size_t lead = lead_end(line);
    const char first = lead < line.size() ? line[lead] : 0;
    if (fence_char != 0) {
      for (char c : line)
        if (is_markup(c)) out.push_back(true);
      const std::size_t n = run_at(line, lead, fence_char);
      if (n != 0 && n >= fence_len && line.find_first_not_of(" \t\r", lead + n) == std::string::npos)
        fence_char = 0;
    } else if ((first == '`' || first == '~') && run_at(line, lead, first) >= 3) {
      for (char c : line)
        if (is_markup(c)) out.push_back(true);
      fence_char = first;
      fence_len = run_at(line, lead, first);
    } else {
      std::size_t span = 0;
      for (std::size_t i = 0; i < line.size();) {
        if (line[i] == '`') {
          const std::size_t n = run_at(line, i, '`');
          if (span == 0)
            span = n;
          else if (span == n)
            span = 0;
          i += n;
          continue;
        }
        if (is_markup(line[i])) out.push_back(span != 0);
        ++i;
      }
    }
    start = end + 1;
  }
  return out;
}

std::string random_doc(std::mt19937& rng, int tokens) {
  static const char* pieces[] = {"`",     "``", "```", "````", "~",   "~~",   "~~~",  "~~~~",
                                 "\n",    "\n", "\n",  " ",    "  ",  "\t",   ">",    "> ",
                                 "- ",    "-",  "* ",  "+ ",   "1. ", "12) ", "3.",   "x",
                                 "word ", "<",  "[",   "<",    "[",   "\r",   "\r\n", "7"};
  std::string s;
  for (int i = 0; i < tokens; ++i) s += pieces[rng() % (sizeof pieces / sizeof *pieces)];
  return s;
}

TEST(CodeTrackerReference, RandomDocumentsMatchLineModel) {
  std::mt19937 rng(2026);
  for (int t = 0; t < 4000; ++t) {
    const std::string doc = random_doc(rng, 1 + static_cast<int>(rng() % 40));
    const std::vector<bool> want = reference_flags(doc);
    ASSERT_EQ(flags_bytewise(doc), want) << '"' << doc << '"';
    ASSERT_EQ(flags_bulk(doc), want) << '"' << doc << '"';
  }
}

// skip_plain()/feed() in any chunking, with stage 1's masks or without, reach exactly the states that step()
// reaches byte by byte; the line breaks taken in bulk (lines_in_bulk()) among them.
// (The tracker's state after each byte of `doc`, stepped one byte at a time: test::stepped_states.)
using test::stepped_states;

TEST(CodeTrackerDeterminism, BulkFeedMatchesStepByStep) {
  std::mt19937 rng(77);
  std::vector<std::string> docs;
  for (const Case& c : kConformance) docs.emplace_back(c.input);
  for (int t = 0; t < 1500; ++t) docs.push_back(random_doc(rng, 1 + static_cast<int>(rng() % 60)));
  docs.push_back(std::string(5000, 'a') + "`x`" + std::string(300, 'b') + "\n```\n" + std::string(4000, 'c') +
                 "\n```\n");
  // Prose: paragraphs and blank lines, the lines the bulk path is for, beside lines that start a lead.
  docs.emplace_back("One line.\nTwo `x` line.\n\nThird.\n\n\n- item\n> quote\n```\ncode\n```\nEnd\n\n\n");
  // Long lines of prose (a line start or a backtick several blocks away), with a backtick or a lead at some
  // line starts, spans, CRs and non-ASCII first bytes.
  for (int t = 0; t < 200; ++t) {
    static const char* starts[] = {"Plain",
                                   "`tick",
                                   "- item",
                                   "~~~",
                                   "```",
                                   "\r",
                                   "\xC3\x9C"
                                   "ber",
                                   "> q",
                                   "1. x",
                                   "\n"};
    std::string doc;
    const int lines = 1 + static_cast<int>(rng() % 12);
    for (int l = 0; l < lines; ++l) {
      doc += starts[rng() % (sizeof starts / sizeof *starts)];
      doc += std::string(rng() % 200, 'w');
      if (rng() % 3 == 0) doc += " a `span` b";
      doc += std::string(rng() % 90, 'v');
      doc += rng() % 4 == 0 ? "\n\n" : "\n";
    }
    docs.push_back(doc);
  }
  std::uint64_t in_bulk = 0;
  for (const std::string& doc : docs) {
    const std::vector<CodeTracker::State> states = stepped_states(doc);  // state after each byte
    std::vector<stage1::BlockMasks> masks(stage1::blocks_for(doc.size()));
    stage1::scan(doc, masks.data());
    for (int round = 0; round < 6; ++round) {
      const bool with_masks = round >= 3;
      CodeTracker b;
      std::size_t i = 0;
      while (i < doc.size()) {
        const std::size_t k = std::min<std::size_t>(doc.size() - i, 1 + rng() % (round % 3 == 2 ? 400 : 9));
        if (with_masks)
          b.feed(std::string_view(doc).substr(i, k), stage1::MaskView(masks.data(), i, k));
        else
          b.feed(std::string_view(doc).substr(i, k));
        i += k;
        ASSERT_TRUE(b.snapshot() == states[i - 1])
            << '"' << doc << "\" at " << i << (with_masks ? " (masks)" : "");
      }
      in_bulk += b.lines_in_bulk();
    }
  }
  EXPECT_GT(in_bulk, 1000u);  // the bulk path was taken (and its states checked above)
}

// A line that starts with a list marker or `*` after a break taken in bulk (line_breaks(): `- item`,
// `**Day`) has its lead taken in straight-line code when the byte after the marker (or after one blank)
// begins text. Every marker, with no blank, one, two or a tab after it, before every ASCII byte and a
// non-ASCII one, then text with a span: fed whole and in two pieces, with masks and without, the states equal
// stepping's after every feed; and the path is taken.
TEST(CodeTrackerDeterminism, ListMarkersAfterBreaksFeedAsSteppingDoes) {
  std::uint64_t markers = 0;
  for (const char marker : {'-', '*', '+'}) {
    for (const char* blanks : {"", " ", "  ", "\t"}) {
      for (int next = 1; next <= 128; ++next) {
        std::string doc = "Some text here.\n";
        doc += marker;
        doc += blanks;
        if (next == 128)
          doc += "\xC3\x9C";
        else
          doc += static_cast<char>(next);
        doc += "ab `x` c\n~~~\nfence\n";
        const std::vector<CodeTracker::State> states = stepped_states(doc);
        std::vector<stage1::BlockMasks> masks(stage1::blocks_for(doc.size()));
        stage1::scan(doc, masks.data());
        for (const std::size_t cut : {doc.size(), std::size_t{15}, std::size_t{17}}) {
          for (const bool with_masks : {false, true}) {
            CodeTracker b;
            for (std::size_t i = 0; i < doc.size();) {
              const std::size_t k = std::min(doc.size() - i, i < cut ? cut - i : doc.size() - i);
              if (with_masks)
                b.feed(std::string_view(doc).substr(i, k), stage1::MaskView(masks.data(), i, k));
              else
                b.feed(std::string_view(doc).substr(i, k));
              i += k;
              ASSERT_TRUE(b.snapshot() == states[i - 1])
                  << testing::PrintToString(doc) << " at " << i << (with_masks ? " (masks)" : "");
            }
            markers += b.markers_in_bulk();
          }
        }
      }
    }
  }
  EXPECT_GT(markers, 1000u);
}

// feed_plain() takes a piece only when stepping it would move nothing but the line's byte count (mid-line
// outside a fence, no backtick or line break in it), and then reaches stepping's state; a piece it refuses
// leaves the tracker as it was, and feed() then reaches stepping's state. Random documents (the tokens above,
// with runs of words between them) in random pieces with masks; fails unless over 5,000 pieces were taken.
// A fixed line in 16-byte pieces: exactly the pieces between its first (the lead) and its last (the break).
TEST(CodeTrackerDeterminism, PlainPiecesFeedAsSteppingDoes) {
  std::mt19937 rng(78);
  std::uint64_t taken = 0;
  for (int t = 0; t < 1500; ++t) {
    std::string doc;
    const int tokens = 1 + static_cast<int>(rng() % 30);
    for (int k = 0; k < tokens; ++k) {
      doc += random_doc(rng, 1);
      if (rng() % 2 == 0) doc += std::string(rng() % 60, 'w') + " ";
    }
    std::vector<stage1::BlockMasks> masks(stage1::blocks_for(doc.size()));
    stage1::scan(doc, masks.data());
    CodeTracker stepped, b;
    for (std::size_t i = 0; i < doc.size();) {
      const std::size_t k = std::min<std::size_t>(doc.size() - i, rng() % 25);
      const std::string_view s = std::string_view(doc).substr(i, k);
      const stage1::MaskView view(masks.data(), i, k);
      const CodeTracker::State before = stepped.snapshot();
      bool only_line_bytes = true;
      for (const char c : s) {
        stepped.step(static_cast<unsigned char>(c));
        CodeTracker::State now = stepped.snapshot();
        now.line_bytes = before.line_bytes;
        now.fence_event = before.fence_event;
        only_line_bytes = only_line_bytes && now == before;
      }
      if (b.feed_plain(s, view)) {
        ++taken;
        ASSERT_FALSE(s.empty());
        ASSERT_TRUE(only_line_bytes) << '"' << doc << "\" at " << i;
      } else {
        ASSERT_TRUE(b.snapshot() == before) << '"' << doc << "\" at " << i;
        b.feed(s, view);
      }
      ASSERT_TRUE(b.snapshot() == stepped.snapshot()) << '"' << doc << "\" at " << i;
      i += k;
    }
  }
  EXPECT_GT(taken, 5000u);

  std::string line;
  for (int w = 0; w < 31; ++w) line += "word ";
  line += "word\n";  // 160 bytes: ten pieces of 16
  std::vector<stage1::BlockMasks> masks(stage1::blocks_for(line.size()));
  stage1::scan(line, masks.data());
  CodeTracker t;
  int plain = 0;
  for (std::size_t i = 0; i < line.size(); i += 16) {
    const std::string_view s = std::string_view(line).substr(i, 16);
    const stage1::MaskView view(masks.data(), i, s.size());
    if (t.feed_plain(s, view))
      ++plain;
    else
      t.feed(s, view);
  }
  EXPECT_EQ(plain, 8);
  EXPECT_FALSE(t.feed_plain(line, {})) << "no masks: never";
}

// What other_breaks() says of each piece fed with masks holds: every listed pointer is a line break of the
// piece, in order, and every line begun in the piece after a break not listed begins with a byte of the plain
// set; in prose with a line that begins otherwise, that line's break is listed and no other; without masks,
// or past kOtherBreaks, nothing is said.
TEST(CodeTrackerDeterminism, OtherBreaksListEveryLineNotKnownPlain) {
  static constexpr ByteSet kPlain{"abcdefghijklmnopqrstuvwxyzPTW"};
  std::mt19937 rng(78);
  std::uint64_t listed = 0, plain = 0, marked = 0;
  for (int t = 0; t < 1500; ++t) {
    std::string doc = random_doc(rng, 1 + static_cast<int>(rng() % 80));
    for (int w = static_cast<int>(rng() % 20); w > 0; --w) {
      static const char* words[] = {"The ",        "word ",    "Plain\n",  "\nWith ",  "\nNot ",
                                    "\n\xC3\x9C ", "\n\nthe ", "\n- the ", "\n**The ", "\n-Not ",
                                    "\n*\tword ",  "\n+ the ", "\n-*the ", "\n* *the "};
      doc.insert(rng() % (doc.size() + 1), words[rng() % (sizeof words / sizeof *words)]);
    }
    std::vector<stage1::BlockMasks> masks(stage1::blocks_for(doc.size()));
    stage1::scan(doc, masks.data());
    CodeTracker b;
    b.plain_line_starts(kPlain);
    for (std::size_t i = 0; i < doc.size();) {
      const std::size_t k = std::min<std::size_t>(doc.size() - i, 1 + rng() % 300);
      const std::string_view s = std::string_view(doc).substr(i, k);
      b.start_listing();
      b.feed(s, stage1::MaskView(masks.data(), i, k));
      i += k;
      const CodeTracker::OtherBreaks& o = b.other_breaks();
      if (!o.known) {
        EXPECT_EQ(o.count, CodeTracker::kOtherBreaks) << "only an overflow says nothing";
        continue;
      }
      std::vector<bool> at(s.size(), false);
      for (std::size_t n = 0; n < o.count; ++n) {
        const std::size_t pos = static_cast<std::size_t>(o.at[n] - s.data());
        ASSERT_LT(pos, s.size());
        ASSERT_EQ(s[pos], '\n');
        if (n > 0) {
          ASSERT_LT(o.at[n - 1], o.at[n]);
        }
        at[pos] = true;
      }
      listed += o.count;
      for (std::size_t p = 1; p < s.size(); ++p) {
        if (s[p - 1] != '\n' || s[p] == '\n' || at[p - 1]) continue;
        // A plain byte, or `-` or `*` and at most one blank or `*` before one.
        std::size_t q = p;
        if (s[q] == '-' || s[q] == '*') {
          ++q;
          if (q < s.size() && (s[q] == ' ' || s[q] == '\t' || s[q] == '*')) ++q;
          ++marked;
        }
        ASSERT_TRUE(q < s.size() && kPlain.contains(static_cast<unsigned char>(s[q])))
            << '"' << doc << "\" piece at " << i - k;
        ++plain;
      }
    }
    b.feed(doc);
    EXPECT_FALSE(b.other_breaks().known);
  }
  EXPECT_GT(listed, 1000u);
  EXPECT_GT(plain, 1000u);
  EXPECT_GT(marked, 300u);  // lines after a marker left unlisted

  CodeTracker c;
  c.plain_line_starts(kPlain);
  const std::string prose = "The first.\n\nTwo words.\nNot plain.\nWords\n\n- item\n**the\n+ plus\nthe end\n";
  std::vector<stage1::BlockMasks> masks(stage1::blocks_for(prose.size()));
  stage1::scan(prose, masks.data());
  c.start_listing();
  c.feed(prose, stage1::MaskView(masks.data(), 0, prose.size()));
  ASSERT_TRUE(c.other_breaks().known);
  ASSERT_EQ(c.other_breaks().count, 2u);
  EXPECT_EQ(c.other_breaks().at[0], prose.data() + prose.find("\nNot"));
  EXPECT_EQ(c.other_breaks().at[1], prose.data() + prose.find("\n+ plus"));  // not `- item`, `**the`
}

// Prose fed whole with masks: every paragraph's line breaks are taken in bulk, its first letter read there,
// and with the letters as the plain set no break is listed.
TEST(CodeTrackerDeterminism, ProseLinesAreTakenInBulkAndNoneListed) {
  std::string prose;
  for (int p = 0; p < 40; ++p)
    prose += "A paragraph of words, long enough to span a block or two of stage 1.\n\n";
  std::vector<stage1::BlockMasks> masks(stage1::blocks_for(prose.size()));
  stage1::scan(prose, masks.data());
  static constexpr ByteSet kLetters{"Aabcdefghijklmnopqrstuvwxyz"};
  CodeTracker t;
  t.plain_line_starts(kLetters);
  t.start_listing();
  t.feed(prose, stage1::MaskView(masks.data(), 0, prose.size()));
  EXPECT_EQ(t.lines_in_bulk(), 40u);
  EXPECT_TRUE(t.other_breaks().known);
  EXPECT_EQ(t.other_breaks().count, 0u);
  EXPECT_FALSE(t.in_code());
  EXPECT_EQ(t.bytes_since_line_start(), 0u);
}

TEST(CodeTrackerDeterminism, SkipPlainOnlySkipsInertBytes) {
  CodeTracker t;
  EXPECT_EQ(t.skip_plain("abc"), 0u);  // at line start every byte matters
  t.feed("Hello");
  EXPECT_EQ(t.skip_plain(" world <x> [y] ~~~ `code`"), 19u);  // stops at the backtick
  EXPECT_EQ(t.bytes_since_line_start(), 24u);
  EXPECT_EQ(t.skip_plain("\nnext"), 0u);
  t.feed("\n```\ninside <x> `not a span` [y]");
  EXPECT_TRUE(t.in_fence());
  EXPECT_EQ(t.skip_plain("more ` ` stuff\n```"), 14u);  // inside a fence only '\n' matters
}

// A script for one tracker: each step gives it bytes, through one feed() or (`step`) one step() per byte as
// the parser does at a markup byte, then asks one question; a step without bytes asks about the same state,
// one without a question only gives bytes. A failure names the step, the question and all bytes given.
enum class By { feed, step };
// A question: one of the tracker's yes-or-no readings, by name for the failure message.
struct Ask {
  const char* name = nullptr;  // nullptr: no question
  bool (CodeTracker::*read)() const noexcept = nullptr;
};
constexpr Ask in_code{"in_code()", &CodeTracker::in_code};
constexpr Ask in_fence{"in_fence()", &CodeTracker::in_fence};
constexpr Ask fence_line_started{"fence_line_started()", &CodeTracker::fence_line_started};
constexpr Ask at_line_start{"at_line_start()", &CodeTracker::at_line_start};

struct Step {
  By by;
  std::string bytes;
  Ask ask{};
  bool want = false;
};

void run_script(const std::vector<Step>& steps) {
  CodeTracker t;
  std::string given;
  int n = 0;
  for (const Step& s : steps) {
    ++n;
    if (s.by == By::step) {
      for (char c : s.bytes) t.step(static_cast<unsigned char>(c));
    } else if (!s.bytes.empty()) {
      t.feed(s.bytes);
    }
    given += s.bytes;
    if (s.ask.read == nullptr) continue;
    EXPECT_EQ((t.*s.ask.read)(), s.want)
        << "step " << n << ": " << s.ask.name << " after " << ::testing::PrintToString(given);
  }
}

using enum By;

// Each script is a test of its own, named by the script (CodeTracker/CodeTrackerScript.Runs/<name>).
struct Script {
  const char* name;
  std::vector<Step> steps;
};

const Script kScripts[] = {
    {"InlineSpanStates",
     {
         {feed, "a ", in_code, false},
         {step, "`", in_code, true},  // a run in progress opens a span if `<` follows
         {feed, "x", in_code, true},
         {step, "`", in_code, false},  // a `<` now would end the run, closing the span
         {step, "`", in_code, true},   // a run of 2 does not close a span of 1
         {feed, "y`", in_code, false},
         {feed, " z", in_code, false},
     }},
    {"TripleBacktickMidLineIsASpanNotAFence",
     {
         {feed, "Run ```", in_fence, false},
         {feed, "", fence_line_started, false},
         {feed, "ls", in_code, true},
         {feed, "``", in_code, true},
         {feed, "` now", in_code, false},
         {feed, "", in_fence, false},
     }},
    {"UnclosedSpanEndsAtLineEnd",
     {
         {feed, "a `b <x", in_code, true},
         {feed, "\n", in_code, false},
         {feed, "c ", in_code, false},
         {feed, "`", in_code, true},  // a new span of 1 opens on this line, not the old one closing
         {feed, " d", in_code, true},
         {feed, "\r\n", in_code, false},
     }},
    {"LeadRunsOfOneOrTwo",
     {
         {step, "`", in_code, true},
         {step, "`", in_code, true},
         {step, "x", in_code, true},  // span of 2 from the line start
         {feed, "", in_fence, false},
         {feed, "\n~~", in_code, false},  // two tildes: strike-through, not code
         {feed, "`a", in_code, true},     // a backtick right after them opens a span
     }},
    {"FenceLineStartedFiresOnTheThirdByte",
     {
         {feed, "intro\n  ", at_line_start, true},
         {step, "`", fence_line_started, false},
         {feed, "", at_line_start, false},
         {step, "`", fence_line_started, false},
         {step, "`", fence_line_started, true},
         {feed, "", in_fence, true},
         {step, "`", fence_line_started, false},
         {feed, "py\ncode\n"},
         {feed, "``"},
         {step, "`", fence_line_started, false},  // only 3 of the 4 needed, and inside a fence it never fires
         {step, "`", fence_line_started, false},
         {feed, "", in_fence, true},
         {step, "\n", in_fence, false},
         {feed, "~~"},
         {step, "~", fence_line_started, true},
     }},
    {"ClosingFenceLongerThanOpenerCloses",
     {
         {feed, "```\n<x>\n`````\n", in_fence, false},
         {feed, "", in_code, false},
     }},
    {"ShorterOrFollowedRunDoesNotClose",
     {
         {feed, "````\n```\n```` x\n", in_fence, true},
         {feed, "````", in_code, true},  // the closing line itself is code
         {feed, " \t", in_fence, true},
         {feed, "\n", in_fence, false},
     }},
    {"TildeRunDoesNotCloseBacktickFence",
     {
         {feed, "```\n~~~\n~~~~~~\n", in_fence, true},
         {feed, "```\n", in_fence, false},
         {feed, "~~~\n```\n", in_fence, true},
         {feed, "~~~\n", in_fence, false},
     }},
    {"CrlfLines",
     {
         {feed, "text\r\n```js\r\nx <y>\r\n```\r\n", in_fence, false},
         {feed, "after ", in_code, false},
         {feed, "\r\n```\r\n``` \r \r\n", in_fence, false},
         {feed, "```\r\n```\rx\r\n", in_fence, true},  // a \r followed by more text is content: no close
     }},
    {"InfoStringMayHoldBackticks",
     {
         {feed, "```a`b `` c\n<x>\n", in_fence, true},
         {feed, "```\n", in_fence, false},
     }},
    {"AnyIndentation", {{feed, std::string(40, ' ') + "~~~\n<x>\n\t\t\t\t~~~~\n", in_fence, false}}},
};

// gtest prints a parameter beside its test's name, and ctest lists that: the script's name, not its bytes.
void PrintTo(const Script& script, std::ostream* os) { *os << script.name; }

class CodeTrackerScript : public ::testing::TestWithParam<Script> {};

TEST_P(CodeTrackerScript, Runs) { run_script(GetParam().steps); }

INSTANTIATE_TEST_SUITE_P(CodeTracker, CodeTrackerScript, ::testing::ValuesIn(kScripts),
                         [](const ::testing::TestParamInfo<Script>& info) {
                           return std::string(info.param.name);
                         });

TEST(CodeTracker, QuoteMarkers) {
  for (const char* opener : {"> ```", ">> ~~~", "> > ```", ">```", " >  > \t```", "\t> >> ~~~~ info"}) {
    SCOPED_TRACE(opener);
    run_script({{feed, opener, in_fence, true}, {feed, "\n> body\n", in_code, true}});
  }
  run_script({{feed, "> ```\n> x\n>> ```\n", in_fence, false}});  // any quote markers before the closing run
}

TEST(CodeTracker, ListMarkers) {
  for (const char* opener :
       {"- ```", "* ```", "+ ~~~", "1. ```", "1) ```", "42.\t```", "  3)   ~~~", "> - ```", "> 1. ~~~"}) {
    SCOPED_TRACE(opener);
    run_script({{feed, opener, in_fence, true}});
  }
  for (const char* not_opener :
       {"-```", "1.```", "1```", "1 ```", "a. ```", "- - ```", "- > ```", "1.5 ```", "** ```", "-- ```"}) {
    SCOPED_TRACE(not_opener);
    run_script({{feed, not_opener, in_fence, false}});
  }
  run_script({
      {feed, "-", at_line_start, true},
      {feed, " ", at_line_start, true},
      {feed, "x", at_line_start, false},
  });
}

TEST(CodeTracker, BytesSinceLineStart) {
  CodeTracker t;
  EXPECT_EQ(t.bytes_since_line_start(), 0u);
  t.feed("abc");
  EXPECT_EQ(t.bytes_since_line_start(), 3u);
  t.feed("\n");
  EXPECT_EQ(t.bytes_since_line_start(), 0u);
  t.feed("```\n" + std::string(1000, 'z'));
  EXPECT_EQ(t.bytes_since_line_start(), 1000u);
}

TEST(CodeTracker, MarkLineContent) {
  CodeTracker t;
  t.feed("  ");
  t.mark_line_content();  // e.g. a removed directive stood here
  EXPECT_FALSE(t.at_line_start());
  EXPECT_EQ(t.bytes_since_line_start(), 2u);
  t.feed("```");
  EXPECT_FALSE(t.in_fence());  // mid-line now: a span, not a fence
  EXPECT_TRUE(t.in_code());
  t.feed("\n```\nx\n```");
  EXPECT_TRUE(t.in_fence());
  t.mark_line_content();
  t.feed("\n");
  EXPECT_TRUE(t.in_fence());  // the closing candidate had content, so it did not close
  t.feed("`");
  t.mark_line_content();  // ends a lead run of 1 as any byte would
  t.feed("``\n");
  EXPECT_TRUE(t.in_fence());
}

TEST(CodeTracker, SnapshotRestore) {
  CodeTracker t;
  t.feed("para\n``");
  const CodeTracker::State saved = t.snapshot();
  t.feed("`python\n<x>");
  EXPECT_TRUE(t.in_fence());
  t.restore(saved);
  EXPECT_FALSE(t.in_fence());
  EXPECT_EQ(t.bytes_since_line_start(), 2u);
  t.feed(" <x>");
  EXPECT_TRUE(t.in_code());  // the run of 2 opened a span
  EXPECT_FALSE(t.in_fence());
  t.reset();
  EXPECT_TRUE(t.snapshot() == CodeTracker::State{});
  EXPECT_TRUE(t.at_line_start());
  EXPECT_FALSE(t.in_code());
}

}  // namespace
}  // namespace sigil::text
