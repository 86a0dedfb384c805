// CodeTracker::feed_blanks against stepping: from the states random documents leave (including after
// mark_line_content(), as after a removed tag), a run of spaces, tabs and line breaks leaves the state that
// stepping it leaves whenever feed_blanks takes it, and it takes it from every state past a line's lead
// outside a fence.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sigil/text/code_tracker.h"

namespace sigil::text {
namespace {

TEST(CodeTrackerBlanks, FeedBlanksEqualsStepping) {
  const std::vector<std::string> tokens = {"x",  "`",  "``", "```", "~~~",  "\n",  "  ", "\t", "- ",
                                           "1.", "> ", "y ", "\r",  "````", "a`b", "~",  "*"};
  const std::vector<std::string> runs = {" ", "\n", "\n  ", "  \n", "\t\n\n ", "\n\n", "   ", "\n \t \n    "};
  std::mt19937 rng(20261128);
  int taken = 0, refused = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    CodeTracker t;
    std::string doc;
    for (unsigned j = 0, n = 1 + rng() % 12; j < n; ++j) doc += tokens[rng() % tokens.size()];
    t.feed(doc);
    if (rng() % 2 == 0) t.mark_line_content();  // a removed tag stood here
    const std::string& run = runs[rng() % runs.size()];
    const std::size_t last = run.rfind('\n');
    CodeTracker stepped = t;
    for (char c : run) stepped.step(static_cast<unsigned char>(c));
    const bool in_text = !t.in_fence() && !t.at_line_start() && !t.in_code();
    const CodeTracker::State before = t.snapshot();
    const std::uint64_t opened = t.fences_opened();
    if (t.feed_blanks(run.size(), last)) {
      ++taken;
      ASSERT_EQ(t.snapshot(), stepped.snapshot())
          << "doc " << testing::PrintToString(doc) << " run " << testing::PrintToString(run);
      EXPECT_EQ(t.fences_opened(), opened);
      EXPECT_FALSE(t.other_breaks().known);
    } else {
      ++refused;
      EXPECT_EQ(t.snapshot(), before);  // refused: nothing done
    }
    (void)in_text;
  }
  EXPECT_GT(taken, 4000);
  EXPECT_GT(refused, 1000);
}

// After a removed tag in ordinary text (the recognizer's case), it always takes the run.
TEST(CodeTrackerBlanks, TakenAfterRemovedMarkupOutsideCode) {
  for (const std::string doc : {"", "text ", "  ", "- ", "1. ", "> ", "a `b` c ", "~~ ", "x\n"}) {
    CodeTracker t;
    t.feed(doc);
    ASSERT_FALSE(t.in_code()) << doc;
    t.mark_line_content();
    EXPECT_TRUE(t.feed_blanks(3, 0)) << doc;
    EXPECT_EQ(t.bytes_since_line_start(), 2u);
    EXPECT_TRUE(t.at_line_start());
  }
}

}  // namespace
}  // namespace sigil::text
