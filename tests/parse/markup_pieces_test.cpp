// Unit tests for the parser's small machines: character references, the opener scanner, the open-tag
// attribute scanner and the close-tag matcher.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "parse/close_tag_matcher.h"
#include "parse/open_tag_scan.h"
#include "parse/opener_scan.h"
#include "sigil/text/char_refs.h"
#include "support/expect_each.h"
#include "support/run_parse.h"

namespace sigil::parse {
namespace {

using text::decode_char_refs;

TEST(CharRefs, NamedNumericAndUnknown) {
  test::expect_each(
      decode_char_refs,
      {
          {"Tom &amp; Jerry &lt;3 &quot;hi&quot; &apos;yo&apos; &gt;", "Tom & Jerry <3 \"hi\" 'yo' >"},
          {"&#x1F44D;&#127881;", "\xF0\x9F\x91\x8D\xF0\x9F\x8E\x89"},
          {"a&nbsp;b &foo; &copy; & &; &#; &#x; &#xZZ;", "a&nbsp;b &foo; &copy; & &; &#; &#x; &#xZZ;"},
          {"a&#0;b &#xD800; &#x110000; &#99999999999999999999;",
           "a\xEF\xBF\xBD"
           "b \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD"},
          {"&#65;&#x42;&#X43;", "ABC"},
          {"", ""},
          {"&", "&"},
      });
}

struct Scanned {
  OpenerScan::Kind kind;
  std::size_t consumed;  // bytes consumed when the scan ended
};

Scanned scan(OpenerScan& s, std::string_view text, OpenerScan::Options o = {}) {
  s.start(static_cast<unsigned char>(text[0]), 0, o);
  for (std::size_t i = 1; i < text.size(); ++i) {
    OpenerScan::Kind k = s.step(static_cast<unsigned char>(text[i]));
    if (k != OpenerScan::Kind::Pending) return {k, i};
  }
  return {OpenerScan::Kind::Pending, text.size()};
}

class OpenerScanTest : public ::testing::Test {
 protected:
  const NameIndex names{sigil::testing::conformance_registry()};
  OpenerScan scanner{names};
};

TEST_F(OpenerScanTest, RegisteredTagNamesAreWholeWords) {
  using K = OpenerScan::Kind;
  EXPECT_EQ(scan(scanner, "<react ").kind, K::TagOpen);
  EXPECT_EQ(scanner.name(), "react");
  const auto kind_of = [this](const std::string& text) { return scan(scanner, text).kind; };
  test::expect_each<std::string, K>(kind_of, {
                                                 {"<REACT/", K::TagOpen},
                                                 {"<react>", K::TagOpen},
                                                 {"<react-x ", K::NotMarkup},
                                                 {"<reaction ", K::NotMarkup},
                                                 {"<react,", K::NotMarkup},
                                                 {"< react", K::NotMarkup},
                                             });
  // Gives up at the first byte that rules markup out, not later.
  EXPECT_EQ(scan(scanner, "<bxxxxxxxx").consumed, 1u);
}

TEST_F(OpenerScanTest, CloseTagsCommentsAndCdata) {
  using K = OpenerScan::Kind;
  const auto kind_of = [this](const std::string& text) { return scan(scanner, text).kind; };
  test::expect_each<std::string, K>(kind_of, {
                                                 {"</voice>", K::CloseTag},
                                                 {"</VOICE \n>", K::CloseTag},
                                                 {"</b>", K::NotMarkup},
                                                 {"<!--", K::CommentOpen},
                                                 {"<![CDATA[", K::CdataOpen},
                                                 {"<!-x", K::NotMarkup},
                                                 {"<![CDAT ", K::NotMarkup},
                                             });
}

TEST_F(OpenerScanTest, Brackets) {
  using K = OpenerScan::Kind;
  EXPECT_EQ(scan(scanner, "[REMEMBER:").kind, K::BracketOpen);
  EXPECT_EQ(scan(scanner, "[SEARCH]").kind, K::BracketBare);
  EXPECT_EQ(scan(scanner, "[remember:").kind, K::NotMarkup);
  EXPECT_EQ(scan(scanner, "[REMEMBER :").kind, K::NotMarkup);
  EXPECT_EQ(scan(scanner, "[SEARCH\xEF\xBC\x9A").kind, K::NotMarkup);  // full-width colon
  EXPECT_EQ(scan(scanner, "[NOTE:").kind, K::NotMarkup);
}

TEST_F(OpenerScanTest, McpNamesNeedAConfiguredServerAndATool) {
  using K = OpenerScan::Kind;
  EXPECT_EQ(scan(scanner, "<mcp_github_create_issue>").kind, K::TagOpen);
  EXPECT_TRUE(scanner.is_mcp());
  EXPECT_EQ(scanner.mcp_tool(), "create_issue");
  EXPECT_EQ(scan(scanner, "<MCP_My_Server_files.read/").kind, K::TagOpen);
  EXPECT_EQ(names.mcp_servers[static_cast<std::size_t>(scanner.mcp_server())], "my_server");
  EXPECT_EQ(scanner.mcp_tool(), "files.read");
  EXPECT_EQ(scan(scanner, "<mcp_gitlab_x>").kind, K::NotMarkup);
  EXPECT_EQ(scan(scanner, "<mcp_github>").kind, K::NotMarkup);
  EXPECT_EQ(scan(scanner, "<mcp_github_>").kind, K::NotMarkup);
  std::string long_tool = "<mcp_github_" + std::string(129, 't') + ">";
  EXPECT_EQ(scan(scanner, long_tool).kind, K::NotMarkup);
}

TEST_F(OpenerScanTest, WindowHoldsUnregisteredTagsUntilTheirEnd) {
  using K = OpenerScan::Kind;
  OpenerScan::Options o;
  o.window_open = true;
  EXPECT_EQ(scan(scanner, "<thumbsup/>", o).kind, K::Unregistered);
  EXPECT_EQ(scan(scanner, "<unknown emoji=\"a>b\">", o).kind, K::Unregistered);
  EXPECT_EQ(scan(scanner, "</b>", o).kind, K::Unregistered);
  EXPECT_EQ(scan(scanner, "<b <", o).kind, K::NotMarkup);
  o.tag_limit = 16;
  EXPECT_EQ(scan(scanner, "<b " + std::string(40, 'x') + ">", o).kind, K::NotMarkup);
}

TEST_F(OpenerScanTest, TriggerModeHiddenOpenerNeedsLineStartAndLineBreak) {
  using K = OpenerScan::Kind;
  OpenerScan::Options o;
  o.trigger_mode = true;
  o.at_line_start = true;
  EXPECT_EQ(scan(scanner, "<think>\n", o).kind, K::HiddenTrigger);
  EXPECT_EQ(scan(scanner, "<think>  \r\n", o).kind, K::HiddenTrigger);
  EXPECT_EQ(scan(scanner, "<think> x", o).kind, K::NotMarkup);
  o.at_line_start = false;
  EXPECT_EQ(scan(scanner, "<think>\n", o).kind, K::NotMarkup);
}

std::vector<Attribute> attrs_of(std::string_view tag_rest, OpenTagScan::Result* last = nullptr,
                                bool* self = nullptr) {
  OpenTagScan s;
  s.start();
  OpenTagScan::Result r = OpenTagScan::Result::Pending;
  for (char c : tag_rest) {
    r = s.step(static_cast<unsigned char>(c));
    if (r != OpenTagScan::Result::Pending) break;
  }
  if (last) *last = r;
  if (self) *self = s.self_closing();
  return s.attributes();
}

TEST(OpenTagScan, QuotingStyles) {
  OpenTagScan::Result r;
  bool self = false;
  auto a = attrs_of(" a=\"x y\" b='z' c=\\\"q\\\" d=\\'w\\' e=plain f=&amp;/>", &r, &self);
  ASSERT_EQ(r, OpenTagScan::Result::Complete);
  EXPECT_TRUE(self);
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[0].value, "x y");
  EXPECT_EQ(a[1].value, "z");
  EXPECT_EQ(a[2].value, "q");
  EXPECT_EQ(a[3].value, "w");
  EXPECT_EQ(a[4].value, "plain");
  EXPECT_EQ(a[5].value, "&");
}

TEST(OpenTagScan, EscapedQuotesValuelessKeysAndGluedAttributes) {
  OpenTagScan::Result r;
  auto a = attrs_of(" caption=\"She said \\\"hi\\\"\" cleanup x='it\\'s'y=\"1\">", &r);
  ASSERT_EQ(r, OpenTagScan::Result::Complete);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].value, "She said \"hi\"");
  EXPECT_FALSE(a[1].has_value);
  EXPECT_EQ(a[2].value, "it's");
  EXPECT_EQ(a[3].key, "y");
}

TEST(OpenTagScan, UnquotedValuesKeepSlashes) {
  bool self = false;
  OpenTagScan::Result r;
  auto a = attrs_of(" path=/tmp/a.png mode=photo/>", &r, &self);
  ASSERT_EQ(r, OpenTagScan::Result::Complete);
  EXPECT_TRUE(self);
  EXPECT_EQ(a[0].value, "/tmp/a.png");
  EXPECT_EQ(a[1].value, "photo");
}

// The whole-tag path reads the attributes as views: into the tag's bytes where a value has no character
// reference (no copy), into the scanner's decoded copy where it has; the same attributes as step() gives.
TEST(OpenTagScan, ScanWholeGivesViewsEqualToStepping) {
  const std::vector<std::string> tails = {
      " emoji=\"thumbsup\"/>",
      " a=\"x &amp; y\" b='plain' c=\"&lt;3&gt;\" d>",
      " path=\"/tmp/r.pdf\" caption=\"Tom &amp; Jerry\" kind=\"document\" cleanup/>",
      " a=\"&#x1F44D;\"b='&quot;'>",
      ">",
  };
  for (const std::string& tail : tails) {
    OpenTagScan s;
    ASSERT_EQ(s.scan_whole(tail), tail.size()) << tail;
    EXPECT_TRUE(s.attributes().empty()) << tail;  // nothing copied yet
    const std::vector<Attribute> stepped = attrs_of(tail);
    const std::span<const AttributeRef> refs = s.attribute_refs();
    ASSERT_EQ(refs.size(), stepped.size()) << tail;
    for (std::size_t i = 0; i < refs.size(); ++i) {
      EXPECT_EQ(refs[i].key, stepped[i].key) << tail;
      EXPECT_EQ(refs[i].value, stepped[i].value) << tail;
      EXPECT_EQ(refs[i].has_value, stepped[i].has_value) << tail;
      const bool in_tail =
          refs[i].key.data() >= tail.data() && refs[i].key.data() < tail.data() + tail.size();
      EXPECT_TRUE(in_tail) << "the key is read in place: " << tail;
      if (refs[i].has_value && tail.find('&') == std::string::npos) {
        EXPECT_GE(refs[i].value.data(), tail.data()) << "read in place: " << tail;
        EXPECT_LE(refs[i].value.data() + refs[i].value.size(), tail.data() + tail.size()) << tail;
      }
    }
    s.materialize();
    ASSERT_EQ(s.attributes().size(), stepped.size()) << tail;
    for (std::size_t i = 0; i < stepped.size(); ++i) EXPECT_EQ(s.attributes()[i].value, stepped[i].value);
    EXPECT_TRUE(s.attribute_refs().empty());
  }
}

TEST(OpenTagScan, Rejections) {
  OpenTagScan::Result r;
  attrs_of(" note, please>", &r);
  EXPECT_EQ(r, OpenTagScan::Result::Reject);
  attrs_of(" emoji=\"a\n\"/>", &r);
  EXPECT_EQ(r, OpenTagScan::Result::Reject);
  attrs_of(" emoji=\"a\"=x/>", &r);
  EXPECT_EQ(r, OpenTagScan::Result::Reject);
  attrs_of(" emoji=<3/>", &r);
  EXPECT_EQ(r, OpenTagScan::Result::Reject);
  attrs_of(" a <b", &r);
  EXPECT_EQ(r, OpenTagScan::Result::Reject);
  attrs_of(" a=\"<voice>\"/>", &r);  // `<` inside quotes is fine
  EXPECT_EQ(r, OpenTagScan::Result::Complete);
}

TEST(CloseTagMatcher, MatchesCaseInsensitivelyWithWhitespace) {
  CloseTagMatcher m;
  m.set_name("voice");
  std::string s = "ab</VOICE \n>";
  bool done = false;
  for (std::size_t i = 0; i < s.size(); ++i) done = m.step(static_cast<unsigned char>(s[i]), i);
  EXPECT_TRUE(done);
  EXPECT_EQ(m.begin(), 2u);
  m.reset();
  s = "<</voice>";
  done = false;
  for (std::size_t i = 0; i < s.size(); ++i) done = m.step(static_cast<unsigned char>(s[i]), i);
  EXPECT_TRUE(done);
  EXPECT_EQ(m.begin(), 1u);
  m.reset();
  for (char c : std::string("</voices>")) done = m.step(static_cast<unsigned char>(c), 0);
  EXPECT_FALSE(done);
}

}  // namespace
}  // namespace sigil::parse

namespace sigil::parse {
namespace {

std::string run_with_resolver(std::string_view reply, std::size_t chunk) {
  const auto& registry = sigil::testing::conformance_registry();
  ParserOptions o;
  o.inline_resolver = [](const DirectiveEvent& d) -> std::optional<std::string> {
    if (d.args().at("expression").as_string() == "fail") return std::nullopt;
    return std::string("<") + std::string(d.args().at("expression").as_string()) + ">";
  };
  SummarySink sink;
  Parser parser(registry, sink, o);
  const std::size_t step = chunk == 0 ? reply.size() : chunk;
  for (std::size_t i = 0; i < reply.size(); i += step) parser.feed(reply.substr(i, step));
  parser.finish();
  return sink.clean_text();
}

TEST(InlineResolver, ResultStandsWhereTheDirectiveStood) {
  for (std::size_t chunk : {0, 1, 3}) {
    // 10.2: the spaces and emphasis around an inline directive stay.
    EXPECT_EQ(run_with_resolver("Total: [CALCULATE:342*15] USD", chunk), "Total: <342*15> USD");
    EXPECT_EQ(run_with_resolver("It is **<calculate>6*7</calculate>** exactly.", chunk),
              "It is **<6*7>** exactly.");
    // A failed calculation leaves the place tidied, like sigil parse.
    EXPECT_EQ(run_with_resolver("Total: [CALCULATE:fail] USD", chunk), "Total: USD");
    // Other actions are never resolved inline.
    EXPECT_EQ(run_with_resolver("Noted [REMEMBER:x] here", chunk), "Noted here");
  }
}

}  // namespace
}  // namespace sigil::parse
