// Markdown rendered for Signal (channels/signal/signal_text.h): plain text and style ranges in UTF-16 units,
// and the split at 2,000 UTF-8 bytes with each part's ranges re-based.
#include "sigil/channels/signal/signal_text.h"

#include <gtest/gtest.h>

namespace sigil::channels::signal {
namespace {

std::vector<std::string> wires(const SignalText& t) {
  std::vector<std::string> out;
  for (const auto& s : t.styles) out.push_back(s.wire());
  return out;
}

TEST(SignalText, SpansBecomeRangesAndNoMarkupRemains) {
  const SignalText t = render_signal_text("Here is **bold**, *it*, ~~gone~~ and `code`.");
  EXPECT_EQ(t.text, "Here is bold, it, gone and code.");
  EXPECT_EQ(wires(t),
            (std::vector<std::string>{"8:4:BOLD", "14:2:ITALIC", "18:4:STRIKETHROUGH", "27:4:MONOSPACE"}));
}

TEST(SignalText, RangesCountUtf16UnitsAcrossEmojiAndNonBmpText) {
  // 😀 and 𝔘 are two UTF-16 units each; é is one.
  const SignalText t = render_signal_text("😀 é **𝔘x** _y_");
  EXPECT_EQ(t.text, "😀 é 𝔘x y");
  EXPECT_EQ(wires(t), (std::vector<std::string>{"5:3:BOLD", "9:1:ITALIC"}));
  EXPECT_EQ(utf16_units("😀"), 2u);
  EXPECT_EQ(utf16_units(t.text), 10u);
}

TEST(SignalText, NestedSpansOverlapAndBlocksAreLaidOut) {
  const SignalText t = render_signal_text("# Title\n\n***both***\n\n- a\n- b\n\n> quoted\n\n```\nx = 1\n```");
  EXPECT_EQ(t.text, "Title\n\nboth\n\n\xE2\x80\xA2 a\n\xE2\x80\xA2 b\n\n> quoted\n\nx = 1");
  const auto w = wires(t);
  EXPECT_NE(std::find(w.begin(), w.end(), "0:5:BOLD"), w.end());
  EXPECT_NE(std::find(w.begin(), w.end(), "7:4:BOLD"), w.end());
  EXPECT_NE(std::find(w.begin(), w.end(), "7:4:ITALIC"), w.end());
  EXPECT_NE(std::find(w.begin(), w.end(), "32:5:MONOSPACE"), w.end());
}

TEST(SignalText, LinksShowTheirUrlAndRawHtmlStaysText) {
  EXPECT_EQ(render_signal_text("a [site](https://example.com) and https://x.org <b>hi</b>").text,
            "a site (https://example.com) and https://x.org <b>hi</b>");
}

TEST(SignalText, SplitKeepsEachPartUnder2000BytesWithRebasedRanges) {
  std::string md;
  for (int i = 0; i < 300; ++i) md += "word" + std::to_string(i) + " **b😀ld** ";
  const SignalText whole = render_signal_text(md);
  ASSERT_GT(whole.text.size(), 2000u);
  const auto parts = split_signal_text(whole, 2000);
  ASSERT_GE(parts.size(), 2u);
  std::string joined;
  std::size_t ranges = 0;
  for (const SignalText& p : parts) {
    EXPECT_LE(p.text.size(), 2000u);
    EXPECT_NE(p.text.front(), ' ');
    for (const auto& s : p.styles) {
      ASSERT_LE(s.start + s.length, utf16_units(p.text));
      ++ranges;
    }
    joined += (joined.empty() ? "" : " ") + p.text;
  }
  EXPECT_EQ(joined, whole.text);
  EXPECT_EQ(ranges, whole.styles.size());  // the cuts fall between words, never inside a bold one
  // The second part's first range is a "b😀ld" in it.
  const SignalText& second = parts[1];
  ASSERT_FALSE(second.styles.empty());
  const auto& r = second.styles.front();
  EXPECT_EQ(r.style, "BOLD");
  EXPECT_EQ(r.length, 5u);
}

TEST(SignalText, SplitNeverCutsACharacter) {
  SignalText t;
  t.text = std::string(1999, 'a') + "😀😀";  // no space to cut at
  const auto parts = split_signal_text(t, 2000);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].text, std::string(1999, 'a'));
  EXPECT_EQ(parts[1].text, "😀😀");
}

}  // namespace
}  // namespace sigil::channels::signal
