// The prose path (issue 11): valid ordinary text goes from stage 1 to the sink in whole runs. Counts, never
// times: sink calls per reply, bytes stepped through the byte machine, and the text itself.
#include <gtest/gtest.h>

#include <string>

#include "sigil/catalog/registry.h"
#include "sigil/parse/parser.h"

namespace sigil::parse {
namespace {

class CallCounter final : public EventSink {
 public:
  void on_text(std::string_view t, bool hidden) override {
    if (hidden) return;
    ++calls;
    text.append(t);
  }
  void on_directive(const DirectiveEvent&) override {}
  void on_diagnostic(const Diagnostic&) override { ++diagnostics; }
  void on_silence(std::uint64_t) override {}
  void on_fallback() override {}
  void on_end(bool) override {}
  int calls = 0;
  int diagnostics = 0;
  std::string text;
};

const CompiledGrammar& grammar() {
  static const catalog::Registry registry = catalog::Registry::builtin({});
  static const CompiledGrammar compiled(registry);
  return compiled;
}

// Paragraphs of lines that start with a capital letter other than N (no sentinel form starts there), with
// accents, an em dash and inline code.
std::string prose(std::size_t lines) {
  static const char* const starts[] = {"The", "A", "When", "Caf\xC3\xA9", "It", "Every", "Some", "But"};
  std::string s;
  for (std::size_t i = 0; i < lines; ++i) {
    s += starts[i % 8];
    s += " quick fox \xE2\x80\x94 jumps over `the` lazy dog, twice; na\xC3\xAFve and done.\n";
    if (i % 5 == 4) s += "\n";
  }
  return s;
}

TEST(ProsePath, WholeRunsReachTheSink) {
  const std::string in = prose(2000);  // about 160 KiB: several stage-1 windows
  CallCounter sink;
  Parser parser(grammar(), sink);
  parser.feed(in);
  parser.finish();
  EXPECT_EQ(sink.text, in.substr(0, in.size() - 2));  // the end is trimmed
  EXPECT_EQ(parser.stats().bytes_examined, 0u) << "no prose byte is stepped";
  // One call for the first line (held until rule (b) decides it), then whole runs: a few per window.
  EXPECT_LE(sink.calls, 12) << "sink calls for " << in.size() << " bytes";
}

TEST(ProsePath, LinesThatMightBeSentinelsAreJudgedTheRestPassesInBulk) {
  std::string in;
  for (int i = 0; i < 400; ++i) in += i % 4 == 0 ? "Now then, the fox.\n" : "The fox ran on.\n";
  CallCounter sink;
  Parser parser(grammar(), sink);
  parser.feed(in);
  parser.finish();
  EXPECT_EQ(sink.text, in.substr(0, in.size() - 1));
  // Each `N` line is stepped until it cannot be NO_REPLY: two calls for it, the lines between in one.
  EXPECT_LE(sink.calls, 3 * 100 + 4);
}

// A reply streamed in small pieces: most pieces go from stage 1 through the tidier in one run with their
// masks (the fast path), and the text is the text of the whole reply fed at once.
TEST(ProsePath, StreamedPiecesTakeTheDirectRun) {
  std::string in = prose(300);
  in.insert(in.find('\n', 2000) + 1,
            "Noted. [REMEMBER:User likes green tea] <react emoji=\"thumbsup\"/> ok\n");
  CallCounter whole;
  Parser one(grammar(), whole);
  one.feed(in);
  one.finish();
  for (std::size_t chunk : {std::size_t{5}, std::size_t{16}, std::size_t{31}}) {
    CallCounter sink;
    Parser parser(grammar(), sink);
    std::size_t pieces = 0;
    for (std::size_t i = 0; i < in.size(); i += chunk, ++pieces)
      parser.feed(std::string_view(in).substr(i, chunk));
    parser.finish();
    EXPECT_EQ(sink.text, whole.text) << "chunk " << chunk;
    EXPECT_GE(parser.stats().direct_text_runs, pieces / 2)
        << "chunk " << chunk << ", " << pieces << " pieces";
  }
}

// One code state per byte: the sentinel judge takes the lines of prose runs from the shadow code tracker
// (SentinelLines::fence_free_run) instead of stepping them again, but not the lines of a fenced block.
TEST(ProsePath, TheJudgeTakesCodeStatesFromTheShadowTracker) {
  const std::string in = prose(400);
  CallCounter sink;
  Parser parser(grammar(), sink);
  parser.feed(in);
  parser.finish();
  EXPECT_EQ(sink.text, in.substr(0, in.size() - 2));
  EXPECT_GE(parser.stats().shared_code_bytes, in.size() * 9 / 10);
  // One walk of the line breaks: the judge took the dead lines on the shadow tracker's word.
  EXPECT_GE(parser.stats().told_dead_bytes, in.size() * 8 / 10);

  const std::string fenced = "Code:\n```\n" + in + "```\nNO_REPLY";
  CallCounter quiet;
  Parser judged(grammar(), quiet);
  judged.feed(fenced);
  judged.finish();
  EXPECT_EQ(judged.stats().shared_code_bytes, 0u);  // the run opened a fence: the judge steps it all
  EXPECT_EQ(judged.stats().told_dead_bytes, 0u);
}

TEST(ProsePath, InvalidUtf8StillBecomesReplacementsInTheSamePlaces) {
  std::string in = prose(100);
  // At line starts, so that no character of the prose is split: one, one and three units.
  in.insert(in.find('\n', 5000) + 1, "\xED\xA0\x80");  // a surrogate: three units
  in.insert(in.find('\n', 3000) + 1, "\xE2\x82");      // a truncated sequence, then ASCII
  in.insert(in.find('\n', 70) + 1, "\xFF");
  for (std::size_t chunk : {std::size_t{0}, std::size_t{16}, std::size_t{64}, std::size_t{1000}}) {
    CallCounter sink;
    Parser parser(grammar(), sink);
    const std::size_t step = chunk == 0 ? in.size() : chunk;
    for (std::size_t i = 0; i < in.size(); i += step) parser.feed(std::string_view(in).substr(i, step));
    parser.finish();
    EXPECT_EQ(sink.diagnostics, 5) << "chunk " << chunk;
    EXPECT_NE(sink.text.find("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"), std::string::npos);
  }
}

}  // namespace
}  // namespace sigil::parse
