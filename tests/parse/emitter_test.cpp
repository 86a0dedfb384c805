// Emitter (parse/emitter.h): clean text counted on its way to the sink, and no text event ending inside a
// UTF-8 sequence, however the stages before it cut the text.
#include "parse/emitter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::parse {
namespace {

class TextLog final : public EventSink {
 public:
  void on_text(std::string_view text, bool hidden) override {
    EXPECT_FALSE(text.empty());
    EXPECT_TRUE(hidden);
    events.emplace_back(text);
  }
  void on_directive(const DirectiveEvent&) override {}
  void on_diagnostic(const Diagnostic&) override {}
  void on_silence(std::uint64_t) override {}
  void on_fallback() override {}
  void on_end(bool) override {}
  std::vector<std::string> events;
};

// Whether s is whole UTF-8 sequences only (its pieces are valid text, so only the end can be cut).
bool ends_whole(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    i += b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  }
  return i == s.size();
}

// Random text of ASCII, 2-, 3- and 4-byte characters cut anywhere: the events join to the text, none ends
// inside a sequence, count() and the stats move by every byte, and a piece with nothing pending that ends in
// an ASCII byte passes as it came (whole_pieces(), against the test's own count of such pieces).
TEST(Emitter, PiecesEndingInAsciiPassAsTheyCame) {
  const std::vector<std::string> chars = {
      "a", " ", "\n", ".", "\xC3\xA9", "\xE2\x80\xA6", "\xF0\x9F\x91\x8D"};
  std::mt19937 rng(77);
  std::uint64_t whole = 0;
  for (int iter = 0; iter < 500; ++iter) {
    std::string text;
    const std::size_t n = 1 + rng() % 80;
    for (std::size_t k = 0; k < n; ++k) text += chars[rng() % chars.size()];
    TextLog sink;
    ParserStats stats;
    Emitter emitter(sink, true, stats);
    std::uint64_t expected_whole = 0;
    bool pending = false;  // the model: an incomplete sequence waits
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t len = std::min<std::size_t>(1 + rng() % 9, text.size() - i);
      const std::string_view piece = std::string_view(text).substr(i, len);
      if (!pending && static_cast<unsigned char>(piece.back()) < 0x80) ++expected_whole;
      emitter.clean_text(piece);
      i += len;
      pending = !ends_whole(std::string_view(text).substr(0, i));
    }
    std::string joined;
    for (const std::string& e : sink.events) {
      EXPECT_TRUE(ends_whole(joined + e)) << testing::PrintToString(text);
      joined += e;
    }
    ASSERT_EQ(joined, text);
    EXPECT_EQ(emitter.count(), text.size());
    EXPECT_EQ(stats.text_bytes, text.size());
    ASSERT_EQ(emitter.whole_pieces(), expected_whole) << testing::PrintToString(text);
    whole += expected_whole;
  }
  EXPECT_GT(whole, 1000u);  // the path was taken, not only the general one
}

}  // namespace
}  // namespace sigil::parse
