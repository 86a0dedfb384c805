// The code tracker's walk along stage 1's mask words (CodeTracker::feed(s, masks) in straight text) and what
// it rests on: stage1::MaskWalk answers what MaskView::find answers at every place it is moved to; the walk
// reaches the states stepping reaches, in any chunking and block alignment; and end_text_line() is the state
// a line's break leaves whenever line_is_text() said so of the line's next byte.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/text/code_tracker.h"
#include "sigil/text/stage1.h"
#include "support/stepped_states.h"

namespace sigil::text {
namespace {

// Replies made of what a reply's text holds, at the sizes the walk meets: words, long lines across blocks,
// paragraphs, list items, emphasis, spans of 1-3 backticks (some left open, some ending a line), fences of
// backticks and tildes, quotes, ordered items, CRs and non-ASCII bytes.
std::string random_reply(std::mt19937& rng) {
  static const char* const tokens[] = {"word ",    "words and more words ",
                                       "\n",       "\n\n",
                                       "\n\n\n",   "- item ",
                                       "**Day** ", "* x ",
                                       "`x` ",     "``y`` ",
                                       "`",        "``",
                                       "```",      "~~~",
                                       "> q ",     "1. step ",
                                       "\r\n",     "caf\xC3\xA9 ",
                                       "\t",       "  ",
                                       "-*z ",     "+ p ",
                                       "~",        "`a``b` "};
  std::string s;
  const int n = 1 + static_cast<int>(rng() % 80);
  for (int k = 0; k < n; ++k) {
    if (rng() % 6 == 0) s += std::string(rng() % 150, 'w');
    s += tokens[rng() % (sizeof tokens / sizeof *tokens)];
  }
  return s;
}

using test::stepped_states;

// The masks of `text` placed `lead` bytes into a scanned buffer (so that a piece's first byte falls anywhere
// in its block).
struct Scanned {
  std::string buffer;
  std::vector<stage1::BlockMasks> masks;
  Scanned(std::string_view text, std::size_t lead) : buffer(std::string(lead, 'p') + std::string(text)) {
    masks.resize(stage1::blocks_for(buffer.size()) + 1);
    stage1::scan(buffer, masks.data());
  }
};

TEST(MaskWalk, NextEqualsFindAtEveryPlace) {
  std::mt19937 rng(2211);
  std::uint64_t stops = 0;
  for (int t = 0; t < 3000; ++t) {
    const std::string text = random_reply(rng);
    const Scanned sc(text, rng() % 130);
    const std::size_t lead = sc.buffer.size() - text.size();
    const std::size_t from = rng() % (text.size() + 1);
    const std::size_t size = rng() % (text.size() - from + 1);
    const stage1::MaskView view(sc.masks.data(), lead + from, size);
    std::size_t place = size == 0 ? 0 : rng() % size;
    stage1::MaskWalk walk(view, stage1::kBackticksOrNewlines, place);
    for (;;) {
      const std::size_t next = walk.next();
      ASSERT_EQ(next, view.find(stage1::kBackticksOrNewlines, place)) << "case " << t << " at " << place;
      if (next == size) break;
      ++stops;
      // On past the stop, or only part of the way to it (a seek within the same word), or far past it.
      const unsigned how = rng() % 4;
      const std::size_t to = how == 0   ? place + (next - place) / 2
                             : how == 1 ? next + 1 + rng() % 200
                                        : next + 1;
      place = std::min(to, size);
      walk.seek(place);
    }
  }
  EXPECT_GT(stops, 4000u);
}

// feed(s, masks) in random pieces (1-9 bytes, 1-200, or whole), the text at random block offsets: the state
// after every piece is stepping's, and the walk's line breaks and list markers were taken (lines_in_bulk(),
// markers_in_bulk()).
TEST(CodeTrackerWalk, WalkedRepliesReachSteppingsStates) {
  std::mt19937 rng(2212);
  std::uint64_t lines = 0, markers = 0, ends_in_run = 0;
  for (int t = 0; t < 2500; ++t) {
    const std::string doc = random_reply(rng);
    const std::vector<CodeTracker::State> states = stepped_states(doc);
    const Scanned sc(doc, rng() % 64);
    const std::size_t lead = sc.buffer.size() - doc.size();
    for (int round = 0; round < 3; ++round) {
      CodeTracker walked;
      for (std::size_t i = 0; i < doc.size();) {
        const std::size_t cap = round == 0 ? 9 : round == 1 ? 200 : doc.size();
        const std::size_t k = std::min<std::size_t>(doc.size() - i, 1 + rng() % cap);
        walked.feed(std::string_view(doc).substr(i, k), stage1::MaskView(sc.masks.data(), lead + i, k));
        i += k;
        ASSERT_EQ(walked.snapshot(), states[i - 1]) << testing::PrintToString(doc) << " at " << i;
        if (doc[i - 1] == '`' && i < doc.size() && doc[i] == '`') ++ends_in_run;
      }
      lines += walked.lines_in_bulk();
      markers += walked.markers_in_bulk();
    }
  }
  EXPECT_GT(lines, 20000u);
  EXPECT_GT(markers, 1000u);
  EXPECT_GT(ends_in_run, 100u);  // pieces that ended inside a backtick run, which the next piece goes on with
}

// Wherever line_is_text() holds for the next byte, stepping that byte and the rest of its line with its break
// leaves end_text_line()'s state; it holds at every mid-line place in text outside fences, and not at a
// line's start before a lead byte or inside a fence.
TEST(CodeTrackerWalk, TextLinesEndAsSteppingDoes) {
  std::mt19937 rng(2213);
  std::uint64_t text_lines = 0, refused = 0;
  for (int t = 0; t < 1500; ++t) {
    const std::string doc = random_reply(rng);
    CodeTracker t0;
    for (std::size_t p = 0; p < doc.size(); ++p) {
      const auto b = static_cast<unsigned char>(doc[p]);
      const std::size_t nl = doc.find('\n', p);
      if (nl != std::string::npos && t0.line_is_text(b)) {
        ++text_lines;
        CodeTracker stepped = t0, jumped = t0;
        for (std::size_t q = p; q <= nl; ++q) stepped.step(static_cast<unsigned char>(doc[q]));
        jumped.end_text_line();
        ASSERT_EQ(jumped.snapshot(), stepped.snapshot()) << testing::PrintToString(doc) << " at " << p;
      } else if (!t0.line_is_text(b)) {
        ++refused;
        EXPECT_TRUE(t0.in_fence() || t0.at_line_start() || b == '\n' || doc[p - 1] == '`' ||
                    doc[p - 1] == '~')
            << testing::PrintToString(doc) << " at " << p;
      }
      t0.step(b);
    }
  }
  EXPECT_GT(text_lines, 50000u);
  EXPECT_GT(refused, 5000u);
}

}  // namespace
}  // namespace sigil::text
