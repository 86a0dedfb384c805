// Tidier::trailing_breaks(): a piece that ends in one line break after its bulk run (a paragraph before
// markup) takes it as step('\n') does in the plain state, without the machine. Pinned against stepping it
// (settle_in_bulk(false), which steps the other settled bytes too, so the sink's calls split differently):
// the same text, and the same emitted() and held_bytes() after every piece and gap, over random replies in
// random pieces with stage 1's masks; and the shape it is for.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/tidier.h"
#include "sigil/text/stage1.h"
#include "support/text_recorder.h"

namespace sigil::parse {
namespace {

struct Fed {
  std::string text;
  std::vector<std::string> calls;
  std::vector<std::uint64_t> states;  // emitted() and held_bytes() after each piece and gap
  std::uint64_t breaks = 0;
};

// `reply` with `|` as a removed directive: the text between in pieces of 1 to `step` bytes, each with the
// masks of the scanned reply at its place.
Fed feed(const std::string& reply, std::uint32_t seed, std::size_t step, bool bulk) {
  std::vector<text::stage1::BlockMasks> masks(text::stage1::blocks_for(reply.size()) + 1);
  text::stage1::scan(reply, masks.data());
  test::CallRecorder sink;
  Tidier t(sink);
  t.settle_in_bulk(bulk);
  std::mt19937 rng(seed);
  Fed f;
  for (std::size_t i = 0; i < reply.size();) {
    if (reply[i] == '|') {
      t.gap(GapKind::Directive);
      ++i;
    } else {
      std::size_t n = 1 + rng() % step;
      n = std::min({n, reply.size() - i, reply.find('|', i) - i});
      t.text(std::string_view(reply).substr(i, n), text::stage1::MaskView(masks.data(), i, n));
      i += n;
    }
    f.states.push_back(t.emitted());
    f.states.push_back(t.held_bytes());
  }
  t.finish();
  for (const std::string& c : sink.calls) f.text += c;
  f.calls = std::move(sink.calls);
  f.breaks = t.trailing_breaks();
  return f;
}

TEST(TidierTrailingBreak, LineBreaksAfterBulkEqualStepping) {
  // Prose, line breaks, blank lines, list markers, emphasis, removed directives (`|`), CRs, UTF-8, code; one
  // string, `#` between them.
  std::vector<std::string> tokens(1);
  for (const char c :
       std::string_view("Plain words here#more text.#\n#\n#\n\n# #  #- #* #1. #**#_#~#|#|\n#\n|#\r\n#"
                        "\xC3\xA9t\xC3\xA9#`x`#.#)#\t")) {
    if (c == '#')
      tokens.emplace_back();
    else
      tokens.back() += c;
  }
  std::mt19937 rng(2424);
  std::uint64_t breaks = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string reply;
    for (auto k = rng() % 50; k-- != 0;) reply += tokens[rng() % tokens.size()];
    const auto seed = static_cast<std::uint32_t>(rng());
    const std::size_t step = round % 2 == 0 ? 24 : 400;
    const Fed stepped = feed(reply, seed, step, false);
    const Fed bulk = feed(reply, seed, step, true);
    ASSERT_EQ(bulk.text, stepped.text) << reply;
    ASSERT_EQ(bulk.states, stepped.states) << reply;
    ASSERT_EQ(stepped.breaks, 0u);
    breaks += bulk.breaks;
  }
  EXPECT_GT(breaks, 800u);  // the path was taken
}

// A paragraph and its line break before removed markup: the text up to the paragraph's last byte in one call,
// the break held (then dropped with the line the markup empties).
TEST(TidierTrailingBreak, AParagraphBeforeMarkup) {
  const std::string reply = "Intro.\n\nA paragraph of prose before the block.\n|\n|\nAfter.";
  const Fed f = feed(reply, 1, 1000, true);
  EXPECT_EQ(f.breaks, 1u);
  ASSERT_EQ(f.calls.size(), 2u);
  EXPECT_EQ(f.calls[0], "Intro.\n\nA paragraph of prose before the block.");
  EXPECT_EQ(f.text, "Intro.\n\nA paragraph of prose before the block.\nAfter.");
}

}  // namespace
}  // namespace sigil::parse
