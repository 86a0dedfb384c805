// Regression tests for the parser bugs a review of docs/directives.md found by running every example.
// Each runs whole and byte by byte.
#include <gtest/gtest.h>

#include <string>

#include "sigil/parse/json_text.h"
#include "support/run_parse.h"

namespace {

namespace json = boost::json;
using sigil::testing::RunOptions;

json::object summary(std::string_view reply, RunOptions o = {}, std::size_t chunk = 0) {
  return sigil::testing::run_parse(reply, o, chunk).summary;
}

int count_code(const json::object& s, std::string_view code) {
  int n = 0;
  for (const auto& d : s.at("diagnostics").as_array())
    if (d.as_object().at("code").as_string() == code) ++n;
  return n;
}

TEST(ReviewRegression, CodeAfterAnEarlyEndedJsonBodyIsTracked) {
  for (std::size_t chunk : {0, 1}) {
    // Text follows the value: the backtick after it opens a code span, so `</react>` is text.
    auto s = summary("<setMemory>{\"itemId\":\"a\",\"value\":1} `</react>` ok", {}, chunk);
    EXPECT_EQ(s.at("text"), "`</react>` ok");
    EXPECT_EQ(count_code(s, "orphan-close-tag"), 0);
    // A line no repair accepts ends the body; on that line a bracket in a code span is text.
    s = summary("<setMemory>{\"itemId\":\"a\",\"value\":1\n`[REMEMBER:y]`", {}, chunk);
    EXPECT_EQ(s.at("text"), "`[REMEMBER:y]`");
    EXPECT_EQ(s.at("directives").as_array().size(), 1u);
  }
}

TEST(ReviewRegression, RefusalReasonsSayWhatHappened) {
  // A markup body never closed at `stop` is unclosed, not cut off.
  auto s = summary("<publishWebPage><p>Hi</p>");
  const auto& d = s.at("directives").as_array().at(0).as_object();
  EXPECT_FALSE(d.at("valid").as_bool());
  EXPECT_NE(std::string(d.at("error").as_string()).find("never closed"), std::string::npos);
  EXPECT_EQ(count_code(s, "unclosed-body"), 1);
  EXPECT_EQ(count_code(s, "cut-off"), 0);
  // At `length`, one cut-off diagnostic per body, not two.
  RunOptions cut;
  cut.cut_off = true;
  EXPECT_EQ(count_code(summary("<voice>Hello", cut), "cut-off"), 1);
  // A markup body past its limit is refused for its size, not as unparseable JSON.
  s = summary("<publishWebPage>" + std::string(300 * 1024, 'x') + "</publishWebPage>");
  const auto& big = s.at("directives").as_array().at(0).as_object();
  EXPECT_NE(std::string(big.at("error").as_string()).find("size limit"), std::string::npos);
  EXPECT_EQ(std::string(big.at("error").as_string()).find("JSON"), std::string::npos);
  // Validation messages name the action once.
  s = summary("Ok <react/>");
  for (const auto& g : s.at("diagnostics").as_array())
    EXPECT_EQ(std::string(g.as_object().at("message").as_string()).find("react: react:"), std::string::npos);
}

TEST(ReviewRegression, CloseTagsThatBelongAreNoOrphans) {
  for (std::size_t chunk : {0, 1}) {
    EXPECT_EQ(count_code(summary("<react emoji=\"x\"></react>", {}, chunk), "orphan-close-tag"), 0);
    EXPECT_EQ(count_code(summary("<react emoji=\"x\">\n  </react>", {}, chunk), "orphan-close-tag"), 0);
    EXPECT_EQ(count_code(summary("<no-reply></no-reply>", {}, chunk), "orphan-close-tag"), 0);
    EXPECT_EQ(count_code(summary("<cleanupMemory></cleanupMemory>", {}, chunk), "orphan-close-tag"), 0);
    EXPECT_EQ(count_code(summary("Hi <say>x</say>", {}, chunk), "orphan-close-tag"), 0);
    // Text in between, or nothing open at all: an orphan.
    EXPECT_EQ(count_code(summary("<react emoji=\"x\">yay</react>", {}, chunk), "orphan-close-tag"), 1);
    EXPECT_EQ(count_code(summary("Done.</react>", {}, chunk), "orphan-close-tag"), 1);
  }
}

TEST(ReviewRegression, NumbersAreWrittenPlainly) {
  auto s = summary("<searchArchive>{\"query\": \"x\", \"minScore\": 4.5, \"topK\": \"5.0\"}</searchArchive>");
  const std::string text = sigil::parse::json_text(s);
  EXPECT_NE(text.find("\"minScore\":4.5"), std::string::npos) << text;
  EXPECT_EQ(text.find("E0"), std::string::npos) << text;
  EXPECT_EQ(sigil::parse::json_text(json::value(4.0)), "4");
  EXPECT_EQ(sigil::parse::json_text(json::value(0.25)), "0.25");
}

TEST(ReviewRegression, DroppedTextAndReplacedBytesAreDiagnosed) {
  for (std::size_t chunk : {0, 1}) {
    auto s = summary("Let me check. [SEARCH:cats] My guess: tabby.", {}, chunk);
    EXPECT_EQ(count_code(s, "interrupted-text"), 1);
    EXPECT_EQ(count_code(summary("Checking. [SEARCH:cats]   ", {}, chunk), "interrupted-text"), 0);
    RunOptions say;
    say.say = true;
    EXPECT_EQ(count_code(summary("<say>A.</say>[SEARCH:x]<say>B.</say>", say, chunk), "interrupted-say"), 1);
    EXPECT_EQ(count_code(summary("Hi \xFF there \xC0\xAF", {}, chunk), "invalid-utf8"), 3);
  }
  // Past 16 replacements, one count stands for the rest.
  auto s = summary(std::string(40, '\xFF'));
  EXPECT_EQ(count_code(s, "invalid-utf8"), 17);
}

}  // namespace
