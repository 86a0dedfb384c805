// Streamed pieces (issue 11, case (c)): a fed chunk of valid text with no `<` or `[`, while no construct is
// pending, goes from stage 1 to the ordinary run without the per-piece loop (Parser::Impl::feed_window).
// Counts, never times; the events against the whole reply's (the general path: a whole reply holds markup).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "app/bench_inputs.h"
#include "property/grammar_gen.h"
#include "support/run_parse.h"

namespace sigil::parse {
namespace {

using testing::gen::first_difference;
using testing::gen::run_events;

// The typical reply of case (e) repeated (markup, lists, code spans, brackets, accents), fed whole and in
// 16-byte and random 1-24-byte pieces: the same events; the pieces took the shortcut for most of them, the
// whole reply (which holds markup) never.
TEST(StreamedPieces, OrdinaryPiecesEqualTheWholeReply) {
  const std::string reply = app::bench::long_reply(8 * 1024);
  const testing::RunOptions options;
  const testing::gen::EventLog whole = run_events(reply, options, {});
  ASSERT_TRUE(whole.problems.empty()) << whole.problems.front();
  EXPECT_EQ(whole.stats.ordinary_pieces, 0u);
  EXPECT_FALSE(whole.visible.empty());
  std::mt19937 rng(1616);
  for (int round = 0; round < 6; ++round) {
    std::vector<std::size_t> sizes;
    for (std::size_t fed = 0; fed < reply.size();) {
      const std::size_t n = round == 0 ? 16 : 1 + rng() % 24;
      sizes.push_back(n);
      fed += n;
    }
    const testing::gen::EventLog pieces = run_events(reply, options, sizes);
    ASSERT_TRUE(pieces.problems.empty()) << pieces.problems.front();
    ASSERT_EQ(first_difference(whole, pieces), "") << "round " << round;
    EXPECT_GE(pieces.stats.ordinary_pieces, sizes.size() / 2)
        << "round " << round << ", " << sizes.size() << " pieces";
    EXPECT_LT(pieces.stats.ordinary_pieces, sizes.size()) << "round " << round;  // markup pieces did not
    EXPECT_GE(pieces.stats.plain_runs, sizes.size() / 4) << "round " << round;   // mid-line pieces
  }
}

// Ordinary runs of mid-line text (no backtick, no line break) go the plain way (CodeTracker::feed_plain, no
// search for a last line break, nothing told to the judge): random replies of every construct, in random
// pieces of 1-24 bytes, give the events of the whole reply. The two take the plain way at different places
// (a piece's run ends where the piece does; the whole reply's long runs go the general way, its short runs
// between markup the plain one). Fails unless the pieces took it over 5,000 times and the whole replies over
// 500.
TEST(StreamedPieces, PlainRunsEqualTheWholeReply) {
  std::uint64_t plain_pieces = 0, plain_whole = 0;
  for (int i = 0; i < 400; ++i) {
    testing::gen::ReplyGenerator g(0x9A1E000 + static_cast<std::uint64_t>(i));
    const std::string reply = g.reply();
    const testing::RunOptions options;
    const testing::gen::EventLog whole = run_events(reply, options, {});
    const std::vector<std::size_t> sizes = testing::gen::random_chunking(g.rng(), reply.size(), 24);
    const testing::gen::EventLog pieces = run_events(reply, options, sizes);
    ASSERT_EQ(first_difference(whole, pieces), "") << testing::gen::c_literal(reply) << "\n"
                                                   << testing::gen::describe_chunks(sizes);
    plain_whole += whole.stats.plain_runs;
    plain_pieces += pieces.stats.plain_runs;
  }
  EXPECT_GT(plain_pieces, 5000u);
  EXPECT_GT(plain_whole, 500u) << plain_pieces;
}

// Prose without markup, fed whole: one window, one ordinary piece.
TEST(StreamedPieces, MarkupFreeReplyIsOneOrdinaryPiece) {
  const std::string reply = app::bench::prose(4096);
  const testing::gen::EventLog whole = run_events(reply, testing::RunOptions{}, {});
  ASSERT_TRUE(whole.problems.empty()) << whole.problems.front();
  EXPECT_EQ(whole.stats.ordinary_pieces, 1u);
}

}  // namespace
}  // namespace sigil::parse
