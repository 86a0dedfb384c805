// The benchmark inputs (src/app/bench_inputs.h) have the shape the README's cases promise. No timing here.
#include "app/bench_inputs.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "sigil/parse/parser.h"
#include "sigil/parse/summary.h"
#include "sigil/text/utf8.h"
#include "support/count.h"

namespace {

namespace bench = sigil::app::bench;
namespace parse = sigil::parse;

using sigil::test::count;

struct Parsed {
  parse::SummarySink sink;
  parse::ParserStats stats;
};

void parse_all(std::string_view reply, const parse::ParserOptions& options, std::size_t chunk, Parsed& out) {
  parse::Parser parser(bench::grammar(), out.sink, options);
  const std::size_t step = chunk == 0 ? reply.size() : chunk;
  for (std::size_t i = 0; i < reply.size(); i += step) parser.feed(reply.substr(i, step));
  parser.finish();
  out.stats = parser.stats();
}

TEST(BenchInputs, ProseIsMarkupFree) {
  const std::string s = bench::prose(bench::kProseBytes);
  ASSERT_EQ(s.size(), bench::kProseBytes);
  EXPECT_TRUE(sigil::text::is_valid_utf8(s));
  EXPECT_EQ(s.find_first_of("<[&`~"), std::string::npos);
  EXPECT_NE(s.find("\xC3\xA9"), std::string::npos) << "some multi-byte characters";
  EXPECT_EQ(s, bench::prose(bench::kProseBytes)) << "deterministic";
  Parsed p;
  parse_all(s, {}, 0, p);
  EXPECT_TRUE(p.sink.directives().empty());
  EXPECT_TRUE(p.sink.diagnostics().empty());
  EXPECT_FALSE(p.sink.silent());
  EXPECT_GE(p.sink.clean_text().size() + 4, s.size())
      << "the text goes through (at most trailing dots trimmed)";
}

TEST(BenchInputs, ReactsHoldTenThousandValidDirectives) {
  const std::string s = bench::reacts_in_actions();
  ASSERT_EQ(s.size(), bench::kDirectiveBytes);
  EXPECT_EQ(count(s, "<react "), bench::kReacts);
  EXPECT_EQ(count(s, "<actions>"), bench::kReacts / bench::kReactsPerBlock);
  Parsed p;
  parse_all(s, bench::options_for_many_directives(), 0, p);
  ASSERT_EQ(p.sink.directives().size(), bench::kReacts);
  std::size_t valid = 0;
  for (const parse::DirectiveEvent& d : p.sink.directives()) {
    EXPECT_EQ(d.action, "react");
    valid += d.valid ? 1 : 0;
  }
  EXPECT_EQ(valid, bench::kReacts);
  EXPECT_TRUE(p.sink.diagnostics().empty());
  EXPECT_EQ(p.sink.clean_text().find('<'), std::string::npos) << "no markup left in the text";
}

TEST(BenchInputs, TypicalReplyHasTwoDirectives) {
  const std::string s = bench::typical_reply();
  ASSERT_EQ(s.size(), bench::kTypicalBytes);
  EXPECT_TRUE(sigil::text::is_valid_utf8(s));
  Parsed p;
  parse_all(s, {}, 0, p);
  ASSERT_EQ(p.sink.directives().size(), bench::kTypicalDirectives);
  EXPECT_EQ(p.sink.directives()[0].action, "react");
  EXPECT_EQ(p.sink.directives()[1].action, "remember");
  for (const parse::DirectiveEvent& d : p.sink.directives()) EXPECT_TRUE(d.valid) << d.error;
  EXPECT_TRUE(p.sink.diagnostics().empty());
  EXPECT_NE(p.sink.clean_text().find("Lisboa Card"), std::string::npos);
}

TEST(BenchInputs, LongRepliesRepeatTheTypicalOne) {
  for (std::size_t bytes : {bench::kStreamSmallBytes, bench::kStreamLargeBytes}) {
    const std::string s = bench::long_reply(bytes);
    ASSERT_EQ(s.size(), bytes);
    EXPECT_TRUE(sigil::text::is_valid_utf8(s));
    const std::size_t copies = count(s, "Great question!");
    EXPECT_GE(copies, bytes / (bench::kTypicalBytes + 2) - 1);
    if (bytes != bench::kStreamSmallBytes)
      continue;  // parsing 4 MiB under ASan is slow; the shape is the same
    Parsed p;
    parse_all(s, bench::options_for_many_directives(), bench::kStreamChunk, p);
    std::size_t valid = 0;
    for (const parse::DirectiveEvent& d : p.sink.directives()) valid += d.valid ? 1 : 0;
    EXPECT_EQ(valid, p.sink.directives().size());
    EXPECT_EQ(p.sink.directives().size(), count(s, "<react ") + count(s, "[REMEMBER:"));
    EXPECT_GE(p.sink.directives().size(), 2 * copies - 1);
  }
}

TEST(BenchInputs, UnclosedOpenersAreAllAbandoned) {
  const std::string s = bench::unclosed_openers();
  ASSERT_EQ(s.size(), bench::kOpenerBytes);
  EXPECT_EQ(count(s, "<actions>") + count(s, "<voice>"), bench::kOpeners);
  EXPECT_EQ(count(s, "<voice>"), bench::kOpeners / 2);
  EXPECT_EQ(count(s, "</"), 0u);
  Parsed p;
  parse_all(s, {}, 0, p);
  EXPECT_TRUE(p.sink.directives().empty());
  // Every voice body was abandoned and released as text.
  EXPECT_EQ(count(p.sink.clean_text(), "<voice>"), bench::kOpeners / 2);
  EXPECT_LE(p.stats.bytes_examined, 8 * p.stats.bytes_in + 64);

  const std::string quarter = bench::unclosed_openers(bench::kOpenerBytes / 4, bench::kOpeners / 4);
  ASSERT_EQ(quarter.size(), bench::kOpenerBytes / 4);
  EXPECT_EQ(count(quarter, "<actions>") + count(quarter, "<voice>"), bench::kOpeners / 4);
}

TEST(BenchInputs, MemchrBaselineByteIsAbsent) {
  for (const std::string& s : {bench::prose(4096), bench::typical_reply(), bench::unclosed_openers()}) {
    const char absent = bench::absent_byte(s);
    EXPECT_EQ(s.find(absent), std::string::npos);
    EXPECT_EQ(bench::memchr_pass(s, absent), nullptr);
  }
}

}  // namespace
