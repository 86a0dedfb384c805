// Spec 5.4: the incremental JSON scanner that finds where a streaming body's values end.
#include "sigil/parse/json_scanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sigil/parse/json_lenient.h"
#include "support/expect_each.h"
#include "support/json_pieces.h"

namespace json = boost::json;
using sigil::parse::JsonScanner;
using sigil::parse::parse_lenient;
using Step = JsonScanner::Step;

namespace {

// Feeds `text` byte by byte; returns the offsets just past each ValueEnd.
std::vector<std::size_t> value_ends(std::string_view text, JsonScanner* out = nullptr) {
  JsonScanner sc;
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < text.size(); ++i) {
    Step st = sc.step(static_cast<unsigned char>(text[i]));
    if (st == Step::ValueEnd) ends.push_back(i + 1);
    if (st == Step::Stray) break;
  }
  if (out) *out = sc;
  return ends;
}

// Feeds `text` and returns the scanner.
JsonScanner fed(std::string_view text) {
  JsonScanner sc;
  for (char c : text) sc.step(static_cast<unsigned char>(c));
  return sc;
}

// The bytes of `tried` that may start a line continuing what `sc` read (line_start_acceptable), in order.
std::string acceptable(const JsonScanner& sc, std::string_view tried) {
  std::string out;
  for (char b : tried)
    if (sc.line_start_acceptable(static_cast<unsigned char>(b))) out += b;
  return out;
}

using Ends = std::vector<std::size_t>;

TEST(JsonScanner, StrictObjectEndsAtItsBrace) {
  std::string text = R"({"itemId":"theme","value":"dark"})";
  EXPECT_EQ(value_ends(text), Ends{text.size()});
}

TEST(JsonScanner, ReportsStartAndEnd) {
  JsonScanner sc;
  EXPECT_EQ(sc.step(' '), Step::Continue);
  EXPECT_EQ(sc.step('\n'), Step::Continue);
  EXPECT_EQ(sc.step('['), Step::ValueStart);
  EXPECT_EQ(sc.depth(), 1);
  EXPECT_FALSE(sc.value_complete());
  EXPECT_EQ(sc.step('1'), Step::Continue);
  EXPECT_EQ(sc.step(']'), Step::ValueEnd);
  EXPECT_EQ(sc.depth(), 0);
  EXPECT_TRUE(sc.value_complete());
  EXPECT_EQ(sc.values_closed(), 1u);
}

TEST(JsonScanner, BracketsInsideStringsAndCommentsDoNotCount) {
  std::string text = R"({"q": "a } \" b ]"})";  // json-028
  EXPECT_EQ(value_ends(text), Ends{text.size()});
  text = "{'q': 'a } \\' ]', /* } ] */ k: [1, // ]\n 2]}";
  EXPECT_EQ(value_ends(text), Ends{text.size()});
  text = "{\"a\": \"\\\\\"}";  // an escaped backslash, then the real closing quote
  EXPECT_EQ(value_ends(text), Ends{text.size()});
  text = "[\"/* not a comment\", \"// nor this\"]";
  EXPECT_EQ(value_ends(text), Ends{text.size()});
  text = "[1 /*/ ] */ ]";  // `/*/` does not close the comment
  EXPECT_EQ(value_ends(text), Ends{text.size()});
}

TEST(JsonScanner, CurlyQuotes) {
  // json-015
  std::string text = "{\u201CitemId\u201D: \u201Cmood\u201D, \u201Cvalue\u201D: \u201Chappy } ]\u201D}";
  EXPECT_EQ(value_ends(text), Ends{text.size()});
  // ’ inside a "…" string is content; “ inside a curly string is content; " inside one too.
  text = "[\"it\u2019s ]\", \u201Ca \u201C \" ] b\u201D, \u2018x \" ] \u2019]";
  EXPECT_EQ(value_ends(text), Ends{text.size()});
  // Half of a curly quote, then a closer: only the full ” closes.
  text = "[\u201C\xE2\x80 ]\xE2 ]\u201D]";
  EXPECT_EQ(value_ends(text), Ends{text.size()});
  JsonScanner sc = fed("[\u201Cab");
  EXPECT_EQ(sc.quote(), JsonScanner::Quote::CurlyDouble);
  sc = fed("[\u2019ab");
  EXPECT_EQ(sc.quote(), JsonScanner::Quote::CurlySingle);
  // An em dash is not a quote.
  sc = fed("[\u2014");
  EXPECT_FALSE(sc.in_string());
}

TEST(JsonScanner, MissingBracketsMeanNoEnd) {
  JsonScanner sc;
  EXPECT_TRUE(value_ends(R"({"itemId": "a", "value": {"x": [1, 2)", &sc).empty());
  EXPECT_EQ(sc.depth(), 3);
  EXPECT_FALSE(sc.value_complete());
}

TEST(JsonScanner, SeveralValues) {
  std::string text = R"({"itemId":"a","value":1} {"itemId":"b","value":2})";  // json-084
  EXPECT_EQ(value_ends(text), (Ends{24, text.size()}));
  text = "{\"itemId\":\"a\",\"value\":1},\n{\"itemId\":\"b\",\"value\":2}";  // json-098
  EXPECT_EQ(value_ends(text), (Ends{24, text.size()}));
  text = R"(["k1"] ["k2", "k3"])";  // json-099
  EXPECT_EQ(value_ends(text), (Ends{6, text.size()}));
}

TEST(JsonScanner, StrayAfterValue) {
  JsonScanner sc;
  std::string text = "{\"itemId\": \"a\"} and more";  // json-085
  std::size_t i = 0;
  Step st = Step::Continue;
  for (; i < text.size(); ++i) {
    st = sc.step(static_cast<unsigned char>(text[i]));
    if (st == Step::Stray) break;
  }
  EXPECT_EQ(st, Step::Stray);
  EXPECT_EQ(i, text.find("and"));
  // A stray byte is not consumed: the state does not change and it can be reported again.
  EXPECT_EQ(sc.step('a'), Step::Stray);
  EXPECT_TRUE(sc.value_complete());
  EXPECT_EQ(sc.step('{'), Step::ValueStart);
  // A closing bracket at depth 0, a quote, a fence: stray.
  JsonScanner top;
  EXPECT_EQ(top.step('{'), Step::ValueStart);
  EXPECT_EQ(top.step('}'), Step::ValueEnd);
  EXPECT_EQ(top.step('}'), Step::Stray);
  EXPECT_EQ(top.step('"'), Step::Stray);
  EXPECT_EQ(top.step('`'), Step::Stray);
  EXPECT_EQ(top.step(','), Step::Continue);
  EXPECT_EQ(top.depth(), 0);
  // Before any value a comma is stray too.
  JsonScanner fresh;
  EXPECT_EQ(fresh.step(','), Step::Stray);
  EXPECT_EQ(fresh.step('x'), Step::Stray);
}

TEST(JsonScanner, StringLineTracking) {
  // json-026: a close tag inside a " string opened on the same line is content.
  JsonScanner sc = fed(R"({"itemId": "snippet", "value": ")");
  EXPECT_TRUE(sc.in_string());
  EXPECT_TRUE(sc.string_opened_on_this_line());
  EXPECT_TRUE(sc.close_tag_is_content());
  // json-086: after a raw newline the string was opened on an earlier line.
  sc = fed("{\"itemId\": \"poem\", \"value\": \"roses\n");
  EXPECT_TRUE(sc.in_string());
  EXPECT_FALSE(sc.string_opened_on_this_line());
  EXPECT_FALSE(sc.close_tag_is_content());
  // An escaped line feed is still a line break.
  sc = fed("[\"a\\\n");
  EXPECT_TRUE(sc.in_string());
  EXPECT_FALSE(sc.string_opened_on_this_line());
  // A new string on the next line is on its line again.
  sc = fed("[\"a\",\n \"b");
  EXPECT_TRUE(sc.string_opened_on_this_line());
  // Single-quoted and curly strings are strings, but a close tag in them ends the body (5.4: `"` only).
  sc = fed("['a");
  EXPECT_TRUE(sc.string_opened_on_this_line());
  EXPECT_FALSE(sc.close_tag_is_content());
  EXPECT_EQ(sc.quote(), JsonScanner::Quote::Single);
  sc = fed("[\u201Ca");
  EXPECT_FALSE(sc.close_tag_is_content());
  // Outside strings.
  sc = fed("[1, ");
  EXPECT_FALSE(sc.in_string());
  EXPECT_FALSE(sc.string_opened_on_this_line());
  EXPECT_EQ(sc.quote(), JsonScanner::Quote::None);
}

TEST(JsonScanner, Comments) {
  const auto in_comment = [](const std::string& text) { return fed(text).in_comment(); };
  sigil::test::expect_each<std::string, bool>(in_comment, {{"[1, /* a", true},
                                                           {"[1, // a", true},
                                                           {"[1, // a\n", false},
                                                           {"[1, /* a */", false},
                                                           {"[1, /* a **/", false}});
}

// ---- 5.4: can a line continue an incomplete value? ----

TEST(JsonScannerLines, Vector100AfterANumber) {
  // Not "Saved it for you!"; not a missing comma (that is no repair); not `]` (not this container's closer).
  EXPECT_EQ(acceptable(fed("{\"itemId\": \"a\", \"value\": 1\n"), "S,}/\"]"), ",}/");
}

TEST(JsonScannerLines, Vector101AfterAString) {
  JsonScanner sc = fed("{\"itemId\": \"tea\",\n");
  EXPECT_TRUE(sc.line_start_acceptable('"'));
  for (char c : std::string("\"value\": \"green\"\n")) sc.step(static_cast<unsigned char>(c));
  EXPECT_FALSE(sc.line_start_acceptable('I'));  // "I will remember that."
  EXPECT_TRUE(sc.line_start_acceptable('}'));
}

TEST(JsonScannerLines, ObjectKeyPosition) {
  for (const char* prefix : {"{\n", "{\"a\": 1,\n"}) {
    SCOPED_TRACE(prefix);
    JsonScanner sc = fed(prefix);
    for (unsigned char b :
         std::initializer_list<unsigned char>{'"', '\'', 0xE2, 'a', 'Z', '_', '$', '}', '/'})
      EXPECT_TRUE(sc.line_start_acceptable(b)) << b;
    for (unsigned char b : {'1', '-', ']', ',', ':', '{', '[', '<', '*', '#'})
      EXPECT_FALSE(sc.line_start_acceptable(b)) << b;
  }
}

TEST(JsonScannerLines, AfterAKey) {
  for (const char* prefix : {"{\"a\"\n", "{a\n", "{'a'\n", "{\u201Ca\u201D\n"}) {
    SCOPED_TRACE(prefix);
    JsonScanner sc = fed(prefix);
    EXPECT_EQ(acceptable(sc, ":/}\"a,"), ":/}");
  }
}

TEST(JsonScannerLines, ValuePositions) {
  for (const char* prefix : {"{\"a\":\n", "[\n", "[1,\n", "{\"a\": [\n"}) {
    SCOPED_TRACE(prefix);
    JsonScanner sc = fed(prefix);
    for (unsigned char b : std::initializer_list<unsigned char>{'"', '\'', 0xE2, '{', '[', '0', '9', '-', 't',
                                                                'f', 'n', 'T', 'F', 'N', '/'})
      EXPECT_TRUE(sc.line_start_acceptable(b)) << b;
    for (unsigned char b : {'a', 'S', 'I', 'x', ',', ':', '+', '.', '<', '#'})
      EXPECT_FALSE(sc.line_start_acceptable(b)) << b;
  }
  // In an array `]` closes (also after a comma: a trailing comma); after a colon `}` is accepted as the
  // container's closer (the reader then reports the missing value).
  EXPECT_TRUE(fed("[1,\n").line_start_acceptable(']'));
  EXPECT_TRUE(fed("{\"a\":\n").line_start_acceptable('}'));
  EXPECT_FALSE(fed("{\"a\":\n").line_start_acceptable(']'));
}

TEST(JsonScannerLines, AfterArrayElement) {
  EXPECT_EQ(acceptable(fed("[1, \"two\", true, {\"a\": 1}\n"), ",]}2W"), ",]");
}

TEST(JsonScannerLines, InsideStringsAndBlockCommentsEveryLineContinues) {
  for (const char* prefix : {"{\"a\": \"line one\n", "{\"a\": 'x\n", "[\u201Cx\n", "[1, /* note\n"}) {
    SCOPED_TRACE(prefix);
    EXPECT_EQ(acceptable(fed(prefix), "S<"), "S<");
  }
  // A line comment ends at its line.
  EXPECT_FALSE(fed("[1 // c\n").line_start_acceptable('S'));
}

TEST(JsonScannerLines, DepthZero) { EXPECT_EQ(acceptable(JsonScanner{}, "{[S"), "{["); }

// ---- Failure and depth ----

TEST(JsonScanner, MismatchedCloserFails) {
  JsonScanner sc;
  sc.step('[');
  sc.step('[');
  EXPECT_EQ(sc.step('}'), Step::Error);
  EXPECT_TRUE(sc.failed());
  EXPECT_EQ(sc.depth(), 1);
  // Tracking goes on; the value still ends structurally.
  EXPECT_EQ(sc.step('"'), Step::Continue);
  EXPECT_TRUE(sc.in_string());
  EXPECT_EQ(sc.step('"'), Step::Continue);
  EXPECT_EQ(sc.step(']'), Step::ValueEnd);
  EXPECT_TRUE(sc.failed());
  EXPECT_FALSE(parse_lenient("[[}]").ok);
}

TEST(JsonScanner, DeepNestingFailsAtTheCapWithoutGrowing) {
  JsonScanner sc;
  std::size_t errors = 0;
  for (int i = 0; i < 100000; ++i) {
    Step st = sc.step('[');
    if (st == Step::Error) {
      ++errors;
      EXPECT_EQ(i, JsonScanner::kMaxDepth);
    }
  }
  EXPECT_EQ(errors, 1u);
  EXPECT_TRUE(sc.failed());
  EXPECT_EQ(sc.depth(), 100000);
  EXPECT_TRUE(sc.line_start_acceptable(']'));
  Step last = Step::Continue;
  for (int i = 0; i < 100000; ++i) {
    last = sc.step(']');
    ASSERT_GE(sc.depth(), 0);
  }
  EXPECT_EQ(last, Step::ValueEnd);
  EXPECT_EQ(sc.depth(), 0);
  EXPECT_EQ(sc.step(']'), Step::Stray);
  EXPECT_EQ(sc.depth(), 0);
  static_assert(sizeof(JsonScanner) <= 128, "the scanner state stays tiny");
}

TEST(JsonScanner, ExactlyTheCapIsFine) {
  std::string text = std::string(JsonScanner::kMaxDepth, '[') + std::string(JsonScanner::kMaxDepth, ']');
  JsonScanner sc;
  EXPECT_EQ(value_ends(text, &sc), Ends{text.size()});
  EXPECT_FALSE(sc.failed());
  // Mixed kinds at every level of the bit-stack.
  text.clear();
  for (int i = 0; i < JsonScanner::kMaxDepth; ++i) text += (i % 3 == 0) ? "{\"k\":" : "[";
  for (int i = JsonScanner::kMaxDepth - 1; i >= 0; --i) text += (i % 3 == 0) ? "}" : "]";
  EXPECT_EQ(value_ends(text, &sc), Ends{text.size()});
  EXPECT_FALSE(sc.failed());
  EXPECT_TRUE(parse_lenient(text).ok);
}

TEST(JsonScanner, Reset) {
  JsonScanner sc = fed("[\"abc");
  sc.reset();
  EXPECT_FALSE(sc.in_string());
  EXPECT_EQ(sc.depth(), 0);
  EXPECT_EQ(sc.values_closed(), 0u);
}

// ---- The bulk fast path ----

TEST(JsonScannerSkip, StopsWhereStepMustSee) {
  JsonScanner sc = fed("[\"");
  EXPECT_EQ(sc.skip_string_bytes("abc</x>def\"]"), 10u);  // `<` is content on the string's own line
  sc = fed("[\"\n");
  EXPECT_EQ(sc.skip_string_bytes("abc</x>"), 3u);  // opened on an earlier line: the caller must see `<`
  sc = fed("[\"");
  EXPECT_EQ(sc.skip_string_bytes("ab\\\"c"), 2u);
  EXPECT_EQ(sc.skip_string_bytes("ab\ncd"), 2u);
  EXPECT_EQ(sc.skip_string_bytes("it\u2019s\""), 6u);  // ’ is content in a "…" string
  sc = fed("['");
  EXPECT_EQ(sc.skip_string_bytes("say \"hi\"'"), 8u);
  sc = fed("[\u201C");
  EXPECT_EQ(sc.skip_string_bytes("ab\"'\xE2\x80\x9D"), 4u);
  sc = fed("[\"a\\");
  EXPECT_EQ(sc.skip_string_bytes("abc"), 0u);  // an escape is pending
  sc = fed("[1");
  EXPECT_EQ(sc.skip_string_bytes("abc"), 0u);  // not in a string
  sc = fed("[\u201C\xE2");
  EXPECT_EQ(sc.skip_string_bytes("abc"), 0u);  // half a closing quote is pending
}

// ---- Properties ----

// Writes `v` as JSON using the repairs at random (whitespace with line breaks, comments, single and curly
// quotes, unquoted keys, Python literals, trailing commas, raw newlines in strings).
class LenientWriter {
 public:
  explicit LenientWriter(std::mt19937& rng) : rng_(rng) {}

  std::string write(const json::value& v) {
    out_.clear();
    value(v);
    return out_;
  }

 private:
  bool chance(int percent) { return std::uniform_int_distribution<int>(0, 99)(rng_) < percent; }

  void ws() {
    switch (std::uniform_int_distribution<int>(0, 9)(rng_)) {
      case 0:
        out_ += ' ';
        break;
      case 1:
        out_ += "\n  ";
        break;
      case 2:
        out_ += " /* c } ] \" */ ";
        break;
      case 3:
        out_ += " // c } ]\n";
        break;
      case 4:
        out_ += "\r\n\t";
        break;
      default:
        break;
    }
  }

  void string(const std::string& s, bool is_key) {
    bool identifier =
        !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_' || s[0] == '$');
    for (char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '-'))
        identifier = false;
    if (is_key && identifier && chance(40)) {
      out_ += s;
      return;
    }
    // 0: "…", 1: '…', 2: “…” (only when the text holds no ”).
    int style = std::uniform_int_distribution<int>(0, 2)(rng_);
    if (style == 2 && s.find("\xE2\x80\x9D") != std::string::npos) style = 0;
    const char* open = style == 1 ? "'" : style == 2 ? "\xE2\x80\x9C" : "\"";
    const char* close = style == 1 ? "'" : style == 2 ? "\xE2\x80\x9D" : "\"";
    out_ += open;
    for (unsigned char c : s) {
      if (c == '\\') {
        out_ += "\\\\";
      } else if (c == '"' && style == 0) {
        out_ += "\\\"";
      } else if (c == '\'' && style == 1) {
        out_ += "\\'";
      } else if (c == '\n' && chance(50)) {
        out_ += '\n';  // raw newline
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else {
        out_ += static_cast<char>(c);
      }
    }
    out_ += close;
  }

  // `open`, each item written by `write` with commas between (and at times a trailing one), then `close`;
  // blanks after the opener, every item and every comma.
  template <class Items, class Write>
  void container(char open, const Items& items, char close, Write write) {
    out_ += open;
    ws();
    bool first = true;
    for (const auto& item : items) {
      if (!first) {
        out_ += ',';
        ws();
      }
      first = false;
      write(item);
      ws();
    }
    if (!first && chance(20)) {
      out_ += ',';
      ws();
    }
    out_ += close;
  }

  void value(const json::value& v) {
    switch (v.kind()) {
      case json::kind::null:
        out_ += chance(30) ? "None" : "null";
        break;
      case json::kind::bool_:
        out_ += v.as_bool() ? (chance(30) ? "True" : "true") : (chance(30) ? "False" : "false");
        break;
      case json::kind::int64:
      case json::kind::uint64:
      case json::kind::double_:
        out_ += json::serialize(v);
        break;
      case json::kind::string:
        string(std::string(v.as_string()), false);
        break;
      case json::kind::array:
        container('[', v.as_array(), ']', [&](const json::value& e) { value(e); });
        break;
      case json::kind::object:
        container('{', v.as_object(), '}', [&](const json::key_value_pair& m) {
          string(std::string(m.key()), true);
          ws();
          out_ += ':';
          ws();
          value(m.value());
        });
        break;
    }
  }

  std::mt19937& rng_;
  std::string out_;
};

json::value random_value(std::mt19937& rng, int depth) {
  int kind = std::uniform_int_distribution<int>(0, depth > 4 ? 5 : 7)(rng);
  switch (kind) {
    case 0:
      return nullptr;
    case 1:
      return std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    case 2:
      return std::uniform_int_distribution<std::int64_t>(std::numeric_limits<std::int64_t>::min(),
                                                         std::numeric_limits<std::int64_t>::max())(rng);
    case 3:
      return std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                        std::uniform_int_distribution<int>(-300, 300)(rng));
    case 4:
    case 5:
      return json::string(sigil::testing::random_json_pieces(rng, 10));
    case 6: {
      json::array a;
      for (int n = std::uniform_int_distribution<int>(0, 4)(rng); n > 0; --n)
        a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      json::object o;
      for (int n = std::uniform_int_distribution<int>(0, 4)(rng); n > 0; --n) {
        std::string key = std::uniform_int_distribution<int>(0, 1)(rng)
                              ? sigil::testing::random_json_pieces(rng, 4)
                              : "k" + std::to_string(n);
        o[key] = random_value(rng, depth + 1);
      }
      return o;
    }
  }
}

json::value random_container(std::mt19937& rng) {
  json::value v = random_value(rng, 0);
  if (!v.is_object() && !v.is_array()) v = json::array{v};
  return v;
}

// The scanner's "value complete" byte agrees with parse_lenient's `consumed`, and the reader gets back the
// value; every line of a well-formed value is a line the scanner accepts (5.4).
void check_agreement(const std::string& text, const json::value& v, const std::string& suffix) {
  std::string whole = text + suffix;
  auto r = parse_lenient(whole);
  ASSERT_TRUE(r.ok) << r.error << "\n" << whole;
  ASSERT_EQ(r.value, v) << whole;
  ASSERT_EQ(r.consumed, text.size()) << whole;
  JsonScanner sc;
  std::size_t first_end = 0;
  for (std::size_t i = 0; i < whole.size() && first_end == 0; ++i) {
    Step st = sc.step(static_cast<unsigned char>(whole[i]));
    ASSERT_NE(st, Step::Error) << whole;
    ASSERT_NE(st, Step::Stray) << whole;
    ASSERT_GE(sc.depth(), 0);
    if (st == Step::ValueEnd) first_end = i + 1;
    if (whole[i] == '\n' && sc.depth() > 0) {
      std::size_t j = i + 1;
      while (j < whole.size() && (whole[j] == ' ' || whole[j] == '\t')) ++j;
      if (j < whole.size() && whole[j] != '\n' && whole[j] != '\r') {
        ASSERT_TRUE(sc.line_start_acceptable(static_cast<unsigned char>(whole[j])))
            << "line at byte " << j << " of\n"
            << whole;
      }
    }
  }
  ASSERT_EQ(first_end, r.consumed) << whole;
}

TEST(JsonScannerProperty, StrictJsonValueEndMatchesConsumed) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 2000; ++i) {
    json::value v = random_container(rng);
    std::string text = json::serialize(v);
    check_agreement(text, v, "");
    check_agreement(text, v, i % 2 ? " {\"next\": 1}" : "\nthanks</setMemory>");
  }
}

TEST(JsonScannerProperty, RepairedJsonValueEndMatchesConsumed) {
  std::mt19937 rng(777);
  LenientWriter writer(rng);
  for (int i = 0; i < 2000; ++i) {
    json::value v = random_container(rng);
    std::string text = writer.write(v);
    check_agreement(text, v, i % 2 ? ", [2]" : " Saved!");
  }
}

TEST(JsonScannerProperty, FastPathGivesTheSameStates) {
  // Feeding with skip_string_bytes wherever possible ends in the same place as byte-by-byte feeding.
  std::mt19937 rng(99);
  LenientWriter writer(rng);
  for (int i = 0; i < 1000; ++i) {
    std::string text = writer.write(random_container(rng)) + " [\"tail";
    JsonScanner slow, fast;
    std::vector<std::size_t> slow_ends, fast_ends;
    for (std::size_t k = 0; k < text.size(); ++k)
      if (slow.step(static_cast<unsigned char>(text[k])) == Step::ValueEnd) slow_ends.push_back(k + 1);
    std::size_t k = 0;
    while (k < text.size()) {
      std::size_t n = fast.skip_string_bytes(std::string_view(text).substr(k));
      if (n > 0) {
        ASSERT_TRUE(fast.in_string());
        k += n;
        continue;
      }
      if (fast.step(static_cast<unsigned char>(text[k])) == Step::ValueEnd) fast_ends.push_back(k + 1);
      ++k;
    }
    ASSERT_EQ(slow_ends, fast_ends) << text;
    ASSERT_EQ(slow.depth(), fast.depth());
    ASSERT_EQ(slow.in_string(), fast.in_string());
    ASSERT_EQ(slow.string_opened_on_this_line(), fast.string_opened_on_this_line());
  }
}

TEST(JsonScannerProperty, ArbitraryBytesNeverBreakInvariants) {
  std::mt19937 rng(4242);
  for (int i = 0; i < 3000; ++i) {
    std::string text = sigil::testing::random_json_pieces(rng, 60);
    if (i % 2) text = "{" + text;
    JsonScanner sc;
    for (char c : text) {
      Step st = sc.step(static_cast<unsigned char>(c));
      ASSERT_GE(sc.depth(), 0);
      if (st == Step::ValueEnd) {
        ASSERT_EQ(sc.depth(), 0);
      }
      if (sc.depth() == 0) {
        ASSERT_FALSE(sc.in_string());
      }
    }
    // When the reader reads a value that closed in the text, the scanner saw it close at the same byte.
    auto r = parse_lenient(text);
    if (r.ok && std::find(r.repairs.begin(), r.repairs.end(), "missing-close") == r.repairs.end()) {
      auto ends = value_ends(text);
      ASSERT_FALSE(ends.empty()) << text;
      ASSERT_EQ(ends.front(), r.consumed) << text;
    }
  }
}

}  // namespace
