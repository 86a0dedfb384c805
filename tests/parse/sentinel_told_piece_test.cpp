// SentinelLines::told_piece: a piece with masks that lies in a run the recognizer told fence-free, with its
// shadow tracker's list of the breaks after which a line may need judging, goes on whole when the general
// path would pass all of it on in one piece as more of dead lines. Pinned here: against that general path
// (told_in_one(false)), the same sink calls byte for byte, the same emitted(), held bytes and verdicts after
// every call and the same counts, over random replies cut into random runs and pieces; and the shapes it is
// for (an ordinary run between markup) take it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/sentinel_lines.h"
#include "sigil/text/code_tracker.h"
#include "sigil/text/stage1.h"
#include "support/shadow_runs.h"
#include "support/text_recorder.h"

namespace sigil::parse {
namespace {

// What a judge did, call by call.
struct Trace {
  std::vector<std::string> calls;
  std::vector<std::uint64_t> after;  // emitted(), held_bytes() and the verdicts after each piece
  std::uint64_t told_dead = 0;
  std::uint64_t shared = 0;
  std::uint64_t told = 0;
};

// `input` in runs as the recognizer has them (`\x01` is removed markup: the shadow tracker marks the line,
// the judge never sees it), each told fence-free when the shadow tracker opened no fence in it, and cut into
// pieces as the tidier may pass them on: whole, split in two with masks, or with a tail without masks.
Trace judge_runs(std::string_view input, std::uint32_t seed, bool told) {
  test::CallRecorder sink;
  SentinelLines judge(sink);
  judge.told_in_one(told);
  text::CodeTracker shadow;
  shadow.plain_line_starts(judge.line_killers());
  std::mt19937 rng(seed);
  Trace t;
  const auto note = [&] {
    t.after.push_back(judge.emitted());
    t.after.push_back(judge.held_bytes());
    t.after.push_back(judge.silent() ? 1 : 0);
  };
  const auto size = [&] { return 1 + rng() % 300; };
  test::shadow_runs(input, shadow, size,
                    [&](std::string_view r, const text::stage1::MaskView& view, bool free) {
                      if (free) judge.fence_free_run(r, &shadow.other_breaks());
                      const std::size_t n = r.size();
                      const std::size_t cut = rng() % 2 == 0 ? n : rng() % (n + 1);
                      if (cut != 0) judge.clean_run(r.substr(0, cut), view.sub(0, cut));
                      note();
                      if (cut < n) {
                        if (rng() % 4 == 0)
                          judge.clean_text(r.substr(cut));
                        else
                          judge.clean_run(r.substr(cut), view.sub(cut, n - cut));
                        note();
                      }
                      judge.fence_free_run({});
                    });
  judge.finish();
  note();
  t.after.push_back(judge.decided_late() ? 1 : 0);
  t.calls = std::move(sink.calls);
  t.told_dead = judge.told_dead_bytes();
  t.shared = judge.shared_code_bytes();
  t.told = judge.told_pieces();
  return t;
}

// Lines of prose (most), lines that die past decoration, lines to judge, fences, spans, blank lines with
// blanks, removed markup, UTF-8.
std::string random_reply(std::mt19937& rng) {
  static const std::vector<std::string> kProse = {
      "Start early at the castle before the tour buses arrive, then walk down through the lanes.",
      "Trains leave every 20 minutes; buy a card and load it with credit so you don't queue twice.",
      "Café near the Sé — most places open around 8:00."};
  static const std::vector<std::string> kOther = {"- Wear shoes with grip",
                                                  "**Day 1 — Alfama.** Start",
                                                  "* a",
                                                  "1. step",
                                                  "NO_REPLY",
                                                  "  NO_REPLY  ",
                                                  "**NO_REPLY**",
                                                  "NO_REPLY is not it",
                                                  "<no-reply/>",
                                                  "```",
                                                  "```js",
                                                  "~~~",
                                                  "`code` and `more`",
                                                  "a ``` b",
                                                  "> quoted",
                                                  "",
                                                  "",
                                                  "   ",
                                                  "\t",
                                                  "N",
                                                  "\x01",
                                                  "x\x01```",
                                                  "\x01NO_REPLY",
                                                  "Él dijo",
                                                  "\r",
                                                  "_x_"};
  std::string out = rng() % 3 == 0 ? "" : "Great question! Here's a plan.\n";
  const int lines = 2 + static_cast<int>(rng() % 40);
  for (int l = 0; l < lines; ++l) {
    out += rng() % 3 != 0 ? kProse[rng() % kProse.size()] : kOther[rng() % kOther.size()];
    if (l + 1 < lines || rng() % 2 == 0) out += rng() % 4 == 0 ? "\n\n" : "\n";
  }
  return out;
}

TEST(SentinelTold, PiecesTakenWholeEqualTheGeneralPath) {
  std::mt19937 rng(24);
  std::uint64_t told = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string input = random_reply(rng);
    const auto seed = static_cast<std::uint32_t>(rng());
    const Trace general = judge_runs(input, seed, false);
    const Trace whole = judge_runs(input, seed, true);
    ASSERT_EQ(whole.calls, general.calls) << input;
    ASSERT_EQ(whole.after, general.after) << input;
    ASSERT_EQ(whole.told_dead, general.told_dead) << input;
    ASSERT_EQ(whole.shared, general.shared) << input;
    EXPECT_EQ(general.told, 0u);
    told += whole.told;
  }
  EXPECT_GT(told, 10000u);  // the path was taken, not only the general one
}

// An ordinary run between markup, as the tidier passes it on: the rest of a dead line, a paragraph break,
// list items and prose. One piece, one sink call, and the code state the general path leaves.
TEST(SentinelTold, AnOrdinaryRunBetweenMarkupGoesOnInOnePiece) {
  const std::string run =
      " covers most museums and public transport.\n- Tipping is modest: rounding up is plenty.\n\n"
      "Their garden café but this we use, was `viva` what morning!\n\nHave a wonderful trip";
  test::CallRecorder sink;
  SentinelLines judge(sink);
  judge.clean_text("Intro line.\n- The");  // a dead line that shows text, the first line decided
  std::vector<text::stage1::BlockMasks> masks(text::stage1::blocks_for(run.size()));
  text::stage1::scan(run, masks.data());
  const text::stage1::MaskView view(masks.data(), 0, run.size());
  text::CodeTracker shadow;
  shadow.plain_line_starts(judge.line_killers());
  shadow.start_listing();
  shadow.feed(run, view);
  judge.fence_free_run(run, &shadow.other_breaks());
  const std::size_t before = sink.calls.size();
  judge.clean_run(run, view);
  judge.fence_free_run({});
  EXPECT_EQ(judge.told_pieces(), 1u);
  ASSERT_EQ(sink.calls.size(), before + 1);
  EXPECT_EQ(sink.calls.back(), run);
  EXPECT_EQ(judge.held_bytes(), 0u);
  // A line to judge among them: the dead lines before it go on at once, the rest the general way.
  const std::string judged = run + "\nNO_REPLY";
  masks.assign(text::stage1::blocks_for(judged.size()), {});
  text::stage1::scan(judged, masks.data());
  const text::stage1::MaskView judged_view(masks.data(), 0, judged.size());
  shadow.start_listing();
  shadow.feed(judged, judged_view);
  judge.fence_free_run(judged, &shadow.other_breaks());
  judge.clean_run(judged, judged_view);
  judge.fence_free_run({});
  EXPECT_EQ(judge.told_pieces(), 2u);
  EXPECT_EQ(sink.calls.back(), run + "\n");  // in one call; the candidate line is held
  EXPECT_EQ(judge.held_bytes(), 8u);
  judge.finish();
  EXPECT_TRUE(judge.silent());
}

}  // namespace
}  // namespace sigil::parse
