// SentinelLines: the first non-empty line, when it dies at its first byte past ASCII spaces and decoration
// (FormSet::dies_early), is decided without stepping: it goes on with the rest of the piece in one call, and
// the judge ends as stepping it would have left it.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/sentinel_lines.h"
#include "sigil/text/stage1.h"
#include "support/text_recorder.h"

namespace sigil::parse {
namespace {

using Calls = test::TextRecorder;

struct Outcome {
  std::string text;
  bool silent = false;
  std::vector<std::uint64_t> emitted;  // after each input byte's piece ends, at the cuts given
};

// The judge fed `reply` in pieces cut at `cuts` (with stage 1's masks of the whole reply), then finished.
Outcome judge(std::string_view reply, const std::vector<std::size_t>& cuts) {
  std::vector<text::stage1::BlockMasks> masks(text::stage1::blocks_for(reply.size()) + 1);
  text::stage1::scan(reply, masks.data());
  Calls out;
  SentinelLines j(out);
  Outcome o;
  std::size_t from = 0;
  for (std::size_t k = 0; k <= cuts.size(); ++k) {
    const std::size_t to = k < cuts.size() ? cuts[k] : reply.size();
    if (to > from) {
      j.clean_run(reply.substr(from, to - from), text::stage1::MaskView(masks.data(), from, to - from));
      o.emitted.push_back(j.emitted());
    }
    from = to;
  }
  j.finish();
  o.text = out.text;
  o.silent = j.silent();
  return o;
}

TEST(SentinelFirstLine, ALineThatDiesAtItsFirstByteGoesOnWithTheRest) {
  const std::string reply = "Great question! Here is a plan.\n\nMore text.\n";
  std::vector<text::stage1::BlockMasks> masks(1);
  text::stage1::scan(reply, masks.data());
  Calls out;
  SentinelLines j(out);
  j.clean_run(reply, text::stage1::MaskView(masks.data(), 0, reply.size()));
  EXPECT_EQ(out.calls, 1u);  // stepped, its first byte went on alone first
  EXPECT_EQ(out.text, reply);
  j.finish();
  EXPECT_FALSE(j.silent());
}

// Against stepping: a first piece that ends inside the line's left side, so that dies_early() cannot see the
// byte that decides it and the line is stepped. Random first lines (left spaces and decoration, then a
// killing byte, a form's first letter, a sentinel, a non-ASCII byte), after blank lines, before more lines:
// the same text, silence and emitted() once the line is past.
TEST(SentinelFirstLine, DecidedAsSteppingDecides) {
  const std::vector<std::string> left = {" ", "  ", "\t", "*",  "**",           "_",
                                         "~", "`",  "-",  "- ", "\xE2\x80\x94 "};
  const std::vector<std::string> heads = {"Great",
                                          "great",
                                          "NO_REPLY",
                                          "NO_REPLY now",
                                          "NO_REPLY.",
                                          "NOTHING",
                                          "N",
                                          "<no-reply/>",
                                          "9 lives",
                                          "\xC3\x9C"
                                          "ber",
                                          "<b>x</b>",
                                          "x",
                                          "NO_MESSAGE **"};
  Calls none;
  const SentinelLines probe(none);
  const text::ByteSet& killers = probe.line_killers();
  std::mt19937 rng(1717);
  std::uint64_t shortcut = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string reply;
    for (int b = static_cast<int>(rng() % 3); b > 0; --b) reply += rng() % 2 ? "\n" : "  \n";
    const std::size_t line = reply.size();
    std::string lead;
    for (int l = 1 + static_cast<int>(rng() % 3); l > 0; --l) lead += left[rng() % left.size()];
    reply += lead;
    const std::string& head = heads[rng() % heads.size()];
    reply += head;
    if (rng() % 2) reply += " and more words";
    if (rng() % 3) reply += "\n\nSecond line.\n";
    SCOPED_TRACE(testing::PrintToString(reply));
    const Outcome whole = judge(reply, {});
    const Outcome stepped = judge(reply, {line + 1});  // the line's first byte, a left one, alone
    ASSERT_EQ(whole.text, stepped.text);
    ASSERT_EQ(whole.silent, stepped.silent);
    ASSERT_EQ(whole.emitted.back(), stepped.emitted.back());
    // Whole, the line died on dies_early()'s word: an ASCII left side, then a killing byte.
    const bool ascii_left = lead.find('\xE2') == std::string::npos;
    shortcut += ascii_left && killers.contains(static_cast<unsigned char>(head[0])) ? 1 : 0;
  }
  EXPECT_GT(shortcut, 1000u);
}

}  // namespace
}  // namespace sigil::parse
