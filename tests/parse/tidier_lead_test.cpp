// Tidier::lead_runs(): what a text() call gathered before a plain run (the byte that made a line show text
// and the blank lines before it, a blank settle() released) goes on with the run in one call with masks.
// Against gathering them for a call of their own (lead_in_bulk(false)): the same text and emitted() at every
// step, and every mask the sink gets is stage 1's mask of its bytes, bit for bit.
//
// Notation as in tidier_test.cpp: '\x01' = a removed directive, '\x02' = any other removal.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/tidier.h"
#include "sigil/text/stage1.h"

namespace sigil::parse {
namespace {

namespace s1 = text::stage1;

constexpr char D = '\x01';
constexpr char O = '\x02';

// Records the text, and checks every mask it is given against a fresh scan of the bytes: every bit of
// every bitmap, so a view widened over bytes that are not the ones passed would be caught.
class StrictMasks final : public TextSink {
 public:
  void clean_text(std::string_view bytes) override {
    text.append(bytes);
    ++calls;
  }
  void clean_run(std::string_view bytes, const s1::MaskView& masks) override {
    if (masks) {
      ++with_masks;
      EXPECT_EQ(masks.size(), bytes.size());
      fresh_.resize(s1::blocks_for(bytes.size()) + 1);
      s1::scan(bytes, fresh_.data());
      const s1::MaskView want(fresh_.data(), 0, bytes.size());
      expect_same(bytes, masks, want, [](const s1::BlockMasks& m) { return m.lt; });
      expect_same(bytes, masks, want, [](const s1::BlockMasks& m) { return m.bracket; });
      expect_same(bytes, masks, want, [](const s1::BlockMasks& m) { return m.newline; });
      expect_same(bytes, masks, want, [](const s1::BlockMasks& m) { return m.backtick; });
    }
    text.append(bytes);
    ++calls;
  }
  std::string text;
  std::size_t calls = 0;
  std::size_t with_masks = 0;

 private:
  template <class Select>
  static void expect_same(std::string_view bytes, const s1::MaskView& got, const s1::MaskView& want,
                          Select select) {
    for (std::size_t j = 0; j < bytes.size(); ++j)
      ASSERT_EQ(got.find(select, j) == j, want.find(select, j) == j)
          << "byte " << j << " of " << testing::PrintToString(std::string(bytes));
  }
  std::vector<s1::BlockMasks> fresh_;
};

struct Trace {
  std::string text;
  std::vector<std::uint64_t> emitted;  // after every piece and every gap
  std::uint64_t lead_runs = 0;
  std::uint64_t settled_lines = 0;
  std::uint64_t trailing_blanks = 0;
};

// Feeds `input` as the recognizer does: its text in pieces cut at `cuts` (and at every gap), each piece a
// view into one scanned buffer (the whole input, gap markers included: bytes no mask marks, as the blanks
// the widened masks are checked against), with its masks at its offset in that buffer.
Trace feed(std::string_view input, const std::vector<std::size_t>& cuts, bool lead, bool settle = true) {
  std::vector<s1::BlockMasks> masks(s1::blocks_for(input.size()) + 1);
  s1::scan(input, masks.data());
  StrictMasks sink;
  Tidier t(sink);
  t.lead_in_bulk(lead);
  t.settle_in_bulk(settle);
  Trace r;
  std::size_t from = 0;  // start of the piece being gathered
  auto piece = [&](std::size_t to) {
    if (to > from) {
      t.text(input.substr(from, to - from), s1::MaskView(masks.data(), from, to - from));
      r.emitted.push_back(t.emitted());
    }
  };
  std::size_t next = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (next < cuts.size() && cuts[next] == i) {
      piece(i);
      from = i;
      ++next;
    }
    if (input[i] == D || input[i] == O) {
      piece(i);
      t.gap(input[i] == D ? GapKind::Directive : GapKind::Other);
      r.emitted.push_back(t.emitted());
      from = i + 1;
    }
  }
  piece(input.size());
  t.finish();
  r.text = sink.text;
  r.lead_runs = t.lead_runs();
  r.settled_lines = t.settled_lines();
  r.trailing_blanks = t.trailing_blanks();
  EXPECT_EQ(t.emitted(), sink.text.size());
  return r;
}

// A random reply of 1-60 of `tokens`, and cut points every 1..`step` bytes of it (both draw from `rng`).
std::string random_reply(std::mt19937& rng, const std::vector<std::string>& tokens) {
  std::string input;
  const unsigned n = 1 + static_cast<unsigned>(rng() % 60);
  for (unsigned j = 0; j < n; ++j) input += tokens[rng() % tokens.size()];
  return input;
}
std::vector<std::size_t> random_cuts(std::mt19937& rng, std::size_t size, std::size_t step) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < size; i += 1 + rng() % step) cuts.push_back(i);
  return cuts;
}

TEST(TidierLead, LeadRunsEqualGathering) {
  const std::vector<std::string> tokens = {
      "word", "b",    " ",     "  ",    "\t",  "\n",           "\n\n", "\r\n",    "\r", "*",
      "**",   "-",    "1.",    ",",     ".",   "\xC3\xA9",     "`",    "<",       "[",  "\"",
      "\x01", "\x02", " \x02", "\x01 ", "x y", "\xE2\x80\xA6", "- a",  "\n\x01\n"};
  std::mt19937 rng(2121);
  std::uint64_t leads = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens);
    SCOPED_TRACE(testing::PrintToString(input));
    const std::vector<std::size_t> cuts = random_cuts(rng, input.size(),
                                                      iter % 3 == 0   ? 4
                                                      : iter % 3 == 1 ? 24
                                                                      : 200);
    const Trace off = feed(input, cuts, false);
    const Trace on = feed(input, cuts, true);
    ASSERT_EQ(off.lead_runs, 0u);
    ASSERT_EQ(on.text, off.text);
    ASSERT_EQ(on.emitted, off.emitted);
    leads += on.lead_runs;
  }
  EXPECT_GT(leads, 3000u);  // the path was taken, not only gathering
}

// Tidier::settled_lines(): the first byte of a line that showed nothing yet (after a line break, blank lines,
// indentation, removed markup) makes it show text without being stepped, and the run after it goes in bulk;
// and Tidier::trailing_blanks(): a piece that ends in one blank after its bulk holds it without stepping.
// Against stepping them (settle_in_bulk(false)): replies of many short lines, list markers, numbers,
// emphasis, indentation, CRs and gaps, in random pieces with masks: the same text and emitted() at every
// step.
TEST(TidierLead, SettledLinesEqualStepping) {
  const std::vector<std::string> tokens = {"Word", "word",     "\n",     "\n",  "\n\n", "  ",          "\t",
                                           " ",    "- ",       "-",      "+ ",  "* ",   "**",          "1. ",
                                           "12)",  "7",        ".",      ",",   "\r\n", "\r",          "\x01",
                                           "\x02", "\xC3\xA9", "`x`",    "<",   "[",    "\"",          "_",
                                           "~",    "\x01\n",   "\n\x02", "x y", ". ",   "\xE2\x80\xA6"};
  std::mt19937 rng(3131);
  std::uint64_t lines = 0, trailing = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string input = random_reply(rng, tokens);
    SCOPED_TRACE(testing::PrintToString(input));
    const std::vector<std::size_t> cuts =
        iter % 2 == 0 ? random_cuts(rng, input.size(), 24) : std::vector<std::size_t>{};
    const Trace off = feed(input, cuts, true, false);
    const Trace on = feed(input, cuts, true, true);
    ASSERT_EQ(off.settled_lines, 0u);
    ASSERT_EQ(off.trailing_blanks, 0u);
    ASSERT_EQ(on.text, off.text);
    ASSERT_EQ(on.emitted, off.emitted);
    lines += on.settled_lines;
    trailing += on.trailing_blanks;
  }
  EXPECT_GT(lines, 3000u);  // the paths were taken
  EXPECT_GT(trailing, 500u);
}

// The shapes the path is for, each in one sink call with masks where gathering took two.
TEST(TidierLead, TheShapesItIsFor) {
  std::vector<s1::BlockMasks> masks(8);
  struct AfterGap {
    std::string text;
    std::uint64_t lead_runs, settled_lines;
    std::size_t calls;  // the sink's calls for `input`
  };
  // `lead`, a removed construct (`gap`), then `input` with its masks, through a fresh tidier.
  const auto after_gap = [&](std::string_view lead, GapKind gap, const std::string& input) {
    s1::scan(input, masks.data());
    StrictMasks sink;
    Tidier t(sink);
    t.text(lead);
    t.gap(gap);
    const std::size_t before = sink.calls;
    t.text(input, s1::MaskView(masks.data(), 0, input.size()));
    t.finish();
    return AfterGap{sink.text, t.lead_runs(), t.settled_lines(), sink.calls - before};
  };
  {
    // Case (e): after a removed block on lines of its own, a first paragraph; the byte that made its line
    // show text is stepped, the rest goes in bulk: one call.
    const AfterGap r = after_gap(
        "x", GapKind::Other, "\nGreat question! Here's a plan for your trip.\n\n**Day 1** Start early.\n");
    EXPECT_EQ(r.text, "x\nGreat question! Here's a plan for your trip.\n\n**Day 1** Start early.");
    EXPECT_EQ(r.lead_runs, 1u);
    EXPECT_EQ(r.settled_lines, 2u);  // `x`, `G`
    EXPECT_EQ(r.calls, 1u);
  }
  {
    // Case (b): a paragraph after a removed block, blank lines before it.
    const AfterGap r =
        after_gap("One.\n\n\n", GapKind::Directive,
                  "\n\nThe next paragraph goes on for a while, longer than a block of sixty-four.\n");
    EXPECT_EQ(r.text, "One.\n\nThe next paragraph goes on for a while, longer than a block of sixty-four.");
    EXPECT_EQ(r.lead_runs, 1u);
    EXPECT_EQ(r.settled_lines, 2u);  // `O`, `T`
    EXPECT_EQ(r.calls, 1u);          // the blank lines kept and the paragraph
  }
  {
    // Case (d): a released body after one that ended in a blank, which the tidier held; the blank lay right
    // before it in the scanned input, so the masks are widened over it and the two go on together.
    const std::string input =
        "<actions>and the body goes on with words that never reach their <voice>and the body goes on";
    s1::scan(input, masks.data());
    const std::size_t cut = input.find("<voice>");
    StrictMasks sink;
    Tidier t(sink);
    t.text(std::string_view(input).substr(0, cut), s1::MaskView(masks.data(), 0, cut));
    const std::size_t before = sink.calls;
    EXPECT_EQ(t.trailing_blanks(), 1u);  // the blank the body ended in, held without stepping
    const std::uint64_t leads = t.lead_runs();
    t.text(std::string_view(input).substr(cut), s1::MaskView(masks.data(), cut, input.size() - cut));
    EXPECT_EQ(sink.calls - before, 1u);
    EXPECT_EQ(t.lead_runs() - leads, 1u);
    t.finish();
    EXPECT_EQ(sink.text, input);
  }
  {
    // The same with the held blank's place in the buffer holding a line break: the masks there are not a
    // blank's, so the two go on together without masks.
    std::string input = "<actions>and the body goes on\n<voice>and the body goes on with more";
    s1::scan(input, masks.data());
    const std::size_t cut = input.find("<voice>");
    StrictMasks sink;
    Tidier t(sink);
    t.text("their ");
    const std::size_t masked = sink.with_masks;
    t.text(std::string_view(input).substr(cut), s1::MaskView(masks.data(), cut, input.size() - cut));
    EXPECT_EQ(t.lead_runs(), 1u);
    EXPECT_EQ(sink.with_masks, masked);
    t.finish();
    EXPECT_EQ(sink.text, "their <voice>and the body goes on with more");
  }
}

}  // namespace
}  // namespace sigil::parse
