// Spec 5.1, 5.3, 5.4: the lenient JSON reader.
#include "sigil/parse/json_lenient.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/json_pieces.h"

namespace json = boost::json;
using sigil::parse::LenientResult;
using sigil::parse::parse_lenient;
using sigil::parse::parse_lenient_sequence;

namespace {

using Repairs = std::vector<std::string>;

// Parses `text` and expects success with `expected_json` (strict JSON) and exactly `repairs`.
void expect_reads(std::string_view text, std::string_view expected_json, const Repairs& repairs) {
  SCOPED_TRACE(std::string(text));
  LenientResult r = parse_lenient(text);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value, json::parse(expected_json)) << json::serialize(r.value);
  EXPECT_EQ(r.repairs, repairs);
  EXPECT_TRUE(r.error.empty());
}

void expect_error(std::string_view text, std::string_view message) {
  SCOPED_TRACE(std::string(text));
  LenientResult r = parse_lenient(text);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, message);
  EXPECT_TRUE(r.value.is_null());
}

// ---- The examples of the brief and the conformance vectors (json.jsonl, eos.jsonl) ----

TEST(JsonLenient, StrictObject) {
  expect_reads(R"({"itemId":"theme","value":"dark"})", R"({"itemId":"theme","value":"dark"})", {});
  expect_reads(
      R"({"itemId": "diet", "value": {"vegetarian": true, "allergies": ["nuts"]}, "expirationInMinutes": 1440})",
      R"({"itemId": "diet", "value": {"vegetarian": true, "allergies": ["nuts"]}, "expirationInMinutes": 1440})",
      {});
}

TEST(JsonLenient, LeadingWhitespace) {
  expect_reads("\n  {\"itemId\": \"old-note\"}\n", R"({"itemId":"old-note"})", {});
}

TEST(JsonLenient, Vector009TrailingCommas) {
  expect_reads(R"({"itemId": "a", "value": [1, 2,],})", R"({"itemId":"a","value":[1,2]})",
               {"trailing-comma"});
}

TEST(JsonLenient, Vector010SingleQuotes) {
  expect_reads("{'itemId': 'a', 'value': 'it works'}", R"({"itemId":"a","value":"it works"})",
               {"single-quotes"});
}

TEST(JsonLenient, Vector011UnquotedKeys) {
  expect_reads(R"({itemId: "a", value: 42})", R"({"itemId":"a","value":42})", {"unquoted-key"});
}

TEST(JsonLenient, Vector012LineComment) {
  expect_reads("{\n  \"itemId\": \"a\", // the key\n  \"value\": \"b\"\n}", R"({"itemId":"a","value":"b"})",
               {"comment"});
}

TEST(JsonLenient, Vector013BlockComment) {
  expect_reads(R"({"itemId": /* the key */ "a", "value": "b"})", R"({"itemId":"a","value":"b"})",
               {"comment"});
}

TEST(JsonLenient, Vector014PythonLiterals) {
  expect_reads("[True, False, None]", "[true,false,null]", {"python-literal"});
  expect_reads(R"({"itemId": "flags", "value": [True, False, None]})",
               R"({"itemId":"flags","value":[true,false,null]})", {"python-literal"});
}

TEST(JsonLenient, Vector015CurlyQuotes) {
  expect_reads("{\u201CitemId\u201D: \u201Cmood\u201D, \u201Cvalue\u201D: \u201Chappy\u201D}",
               R"({"itemId":"mood","value":"happy"})", {"curly-quotes"});
}

TEST(JsonLenient, Vector016RawNewline) {
  expect_reads("{\"itemId\": \"poem\", \"value\": \"line one\nline two\"}",
               R"({"itemId":"poem","value":"line one\nline two"})", {"raw-newline"});
}

TEST(JsonLenient, Vector017MissingClosers) {
  LenientResult r = parse_lenient(R"({"itemId": "a", "value": {"x": [1, 2)");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(json::serialize(r.value), R"({"itemId":"a","value":{"x":[1,2]}})");
  EXPECT_EQ(r.repairs, Repairs{"missing-close"});
}

TEST(JsonLenient, Vector018ManyRepairs) {
  expect_reads(
      "```json\n{'itemId': 'cfg', value: {'on': True,}, // note\n}\n```\n",
      R"({"itemId":"cfg","value":{"on":true}})",
      {"code-fence", "single-quotes", "unquoted-key", "python-literal", "trailing-comma", "comment"});
}

TEST(JsonLenient, Vector019UnicodeEscapes) {
  expect_reads(R"({"itemId": "word", "value": "\u00e9t\u00e9"})",
               "{\"itemId\":\"word\",\"value\":\"\xC3\xA9t\xC3\xA9\"}", {});
}

TEST(JsonLenient, Eos032StringLeftOpen) {
  expect_reads(R"({"itemId": "note", "value": "On my wa)", R"({"itemId":"note","value":"On my wa"})",
               {"unclosed-string", "missing-close"});
}

TEST(JsonLenient, Eos016TrailingCommaAtEnd) {
  expect_reads(R"({"itemId":"x",)", R"({"itemId":"x"})", {"trailing-comma", "missing-close"});
}

TEST(JsonLenient, Eos017NestedCut) {
  expect_reads(R"({"itemId":"a","value":[1,{"k":2)", R"({"itemId":"a","value":[1,{"k":2}]})",
               {"missing-close"});
  expect_reads(R"({"itemId":"a","value":{"n":1,)", R"({"itemId":"a","value":{"n":1}})",
               {"trailing-comma", "missing-close"});
}

TEST(JsonLenient, Eos020NoValueIsAnError) {
  expect_error(R"({"itemId":"a","value":)", "expected a value at byte 22 (end of input)");
}

TEST(JsonLenient, Vector029MissingColon) {
  expect_error(R"({"itemId" "a", "value": 1})", "expected ':' after key at byte 10");
  expect_error(R"({"q": "foo" "bar"})", "expected ',' or '}' at byte 12");
}

TEST(JsonLenient, Vector030MissingValue) { expect_error(R"({"itemId": })", "expected a value at byte 11"); }

TEST(JsonLenient, Vector028BracketsAndQuotesInStrings) {
  expect_reads(R"({"q": "a } \" b ]"})", R"({"q":"a } \" b ]"})", {});
}

TEST(JsonLenient, Vector026CloseTagInString) {
  expect_reads(R"({"itemId": "snippet", "value": "</setMemory> is the close tag"})",
               R"({"itemId":"snippet","value":"</setMemory> is the close tag"})", {});
}

TEST(JsonLenient, Vector086BodyCutInsideStringAfterNewline) {
  // The caller ends the body at the close tag on the string's second line (5.4).
  expect_reads("{\"itemId\": \"poem\", \"value\": \"roses\n", R"({"itemId":"poem","value":"roses\n"})",
               {"raw-newline", "unclosed-string", "missing-close"});
}

TEST(JsonLenient, Vector100And101BodiesEndedBeforeALine) {
  expect_reads("{\"itemId\": \"a\", \"value\": 1\n", R"({"itemId":"a","value":1})", {"missing-close"});
  expect_reads("{\"itemId\": \"tea\",\n\"value\": \"green\"\n", R"({"itemId":"tea","value":"green"})",
               {"missing-close"});
}

TEST(JsonLenient, Vector070ReferencesNotDecoded) {
  expect_reads(R"({"itemId": "a", "value": "Tom &amp; Jerry"})",
               R"({"itemId":"a","value":"Tom &amp; Jerry"})", {});
}

TEST(JsonLenient, ArrayBody) { expect_reads(R"(["k1", "k2"])", R"(["k1","k2"])", {}); }

TEST(JsonLenient, EmptyContainers) {
  expect_reads("{}", "{}", {});
  expect_reads("[]", "[]", {});
  expect_reads("[{}, [], {\"a\": []}]", R"([{},[],{"a":[]}])", {});
}

// ---- Each repair alone ----

TEST(JsonLenientRepairs, CodeFenceVariants) {
  expect_reads("```json\n{\"a\": 1}\n```\n", R"({"a":1})", {"code-fence"});
  expect_reads("```\n{\"a\": 1}\n```", R"({"a":1})", {"code-fence"});
  expect_reads("  ```JSON  \r\n[1]\r\n```\r\n", "[1]", {"code-fence"});
  expect_reads("~~~json\n[1]\n~~~\n", "[1]", {"code-fence"});
  expect_reads("```json\n[1]", "[1]", {"code-fence"});  // no closing fence line
  // consumed covers the closing fence line, so the caller sees that nothing else follows.
  std::string text = "```json\n{\"a\": 1}\n```\n";
  EXPECT_EQ(parse_lenient(text).consumed, text.size());
  text = "```json\n{\"a\": 1}\nthanks";
  EXPECT_EQ(parse_lenient(text).consumed, text.find('}') + 1);
  // A fence line that never ends, or one with backticks in its info string, is not a fence.
  expect_error("```json", "expected '{' or '[' at byte 0");
  expect_error("``` a`b\n{}", "expected '{' or '[' at byte 0");
  expect_error("``\n{}", "expected '{' or '[' at byte 0");
}

TEST(JsonLenientRepairs, ClosingFenceMustMatchOpener) {
  // A ~~~ line does not close a ``` fence: consumed stops at the value.
  std::string text = "```\n[1]\n~~~\n";
  LenientResult r = parse_lenient(text);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.consumed, text.find(']') + 1);
  text = "````\n[1]\n```\n";
  EXPECT_EQ(parse_lenient(text).consumed, text.find(']') + 1);
  text = "```\n[1]\n``` x\n";
  EXPECT_EQ(parse_lenient(text).consumed, text.find(']') + 1);
}

TEST(JsonLenientRepairs, TrailingCommas) {
  expect_reads("[1,]", "[1]", {"trailing-comma"});
  expect_reads("{\"a\": 1,}", R"({"a":1})", {"trailing-comma"});
  expect_reads("[1 , \n ]", "[1]", {"trailing-comma"});
  expect_error("[,]", "expected a value at byte 1");
  expect_error("{,}", "expected a key or '}' at byte 1");
  expect_error("[1,,]", "expected a value at byte 3");
}

TEST(JsonLenientRepairs, SingleQuotes) {
  expect_reads(R"(['it\'s', 'say "hi"'])", R"(["it's","say \"hi\""])", {"single-quotes"});
  expect_reads(R"({'k': "v"})", R"({"k":"v"})", {"single-quotes"});
}

TEST(JsonLenientRepairs, EscapedApostropheInDoubleQuotes) {
  expect_reads(R"(["it\'s"])", R"(["it's"])", {"escaped-apostrophe"});
}

TEST(JsonLenientRepairs, UnquotedKeys) {
  expect_reads("{$a: 1, _b: 2, c-d: 3, e9: 4, true: 5}", R"({"$a":1,"_b":2,"c-d":3,"e9":4,"true":5})",
               {"unquoted-key"});
  expect_error("{9a: 1}", "expected a key or '}' at byte 1");
  expect_error("{-a: 1}", "expected a key or '}' at byte 1");
  expect_error("{a b: 1}", "expected ':' after key at byte 3");
}

TEST(JsonLenientRepairs, Comments) {
  expect_reads("[1, // one\n 2 /* two */, /**/ 3 /* a * / b **/]", "[1,2,3]", {"comment"});
  expect_reads("{/* k */ \"a\" /* c */ : /* v */ 1 // x\n}", R"({"a":1})", {"comment"});
  expect_reads("[1, 2 // the end", "[1,2]", {"comment", "missing-close"});
  expect_reads("[1 /* open", "[1]", {"comment", "unclosed-comment", "missing-close"});
  expect_error("[1 / 2]", "expected ',' or ']' at byte 3");
  expect_error("[/ 2]", "expected a value at byte 1");
}

TEST(JsonLenientRepairs, CommentsInsideStringsAreContent) {
  expect_reads(R"(["// no", "/* no */"])", R"(["// no","/* no */"])", {});
}

TEST(JsonLenientRepairs, PythonLiterals) {
  expect_reads("{\"a\": True}", R"({"a":true})", {"python-literal"});
  expect_reads("[None]", "[null]", {"python-literal"});
  expect_error("[TRUE]", "unexpected 'TRUE' at byte 1");
  expect_error("[nul]", "unexpected 'nul' at byte 1");
  expect_error("[undefined]", "unexpected 'undefined' at byte 1");
  expect_error("[tru", "unexpected 'tru' at byte 1");
}

TEST(JsonLenientRepairs, CurlyQuotes) {
  // Right quotes may open too; single curly quotes work the same way.
  expect_reads("[\u201Da\u201D, \u2018b\u2019, \u2019c\u2019]", R"(["a","b","c"])", {"curly-quotes"});
  // ’ inside a "…" string is content; “ inside a curly string is content.
  expect_reads("[\"it\u2019s\", \u201Cx \u201C y\u201D]", "[\"it\u2019s\",\"x \u201C y\"]", {"curly-quotes"});
  expect_reads("[\"it\u2019s\"]", "[\"it\u2019s\"]", {});
  // Plain quotes inside curly strings are content; escapes still work.
  expect_reads("[\u201Csay \"hi\" \\n\u201D]", R"(["say \"hi\" \n"])", {"curly-quotes"});
  // Other U+20xx characters do not open strings.
  expect_error("[\u2014]", "expected a value at byte 1");
}

TEST(JsonLenientRepairs, RawControlCharacters) {
  expect_reads("[\"a\r\nb\"]", R"(["a\r\nb"])", {"raw-newline"});
  expect_reads("[\"a\tb\"]", R"(["a\tb"])", {"raw-control"});
  expect_reads(std::string_view("[\"a\0b\"]", 7), R"(["a\u0000b"])", {"raw-control"});
}

TEST(JsonLenientRepairs, UnclosedStringDropsPartialEscape) {
  expect_reads(R"(["ab\)", R"(["ab"])", {"unclosed-string", "missing-close"});
  expect_reads(R"(["ab\u00)", R"(["ab"])", {"unclosed-string", "missing-close"});
  expect_reads(R"(["ab\n)", R"(["ab\n"])", {"unclosed-string", "missing-close"});
  expect_reads(R"({"a": 'x)", R"({"a":"x"})", {"single-quotes", "unclosed-string", "missing-close"});
  // A key left open has no value: an error.
  expect_error(R"({"ab)", "expected ':' after key at byte 4 (end of input)");
}

TEST(JsonLenientRepairs, MissingClose) {
  expect_reads("[", "[]", {"missing-close"});
  expect_reads("{", "{}", {"missing-close"});
  expect_reads("[[[", "[[[]]]", {"missing-close"});
  expect_reads("{\"a\": [1, {\"b\": {}", R"({"a":[1,{"b":{}}]})", {"missing-close"});
  expect_error("{\"a\"", "expected ':' after key at byte 4 (end of input)");
  expect_error("{\"a\":", "expected a value at byte 5 (end of input)");
  expect_error("[1.", "invalid number at byte 1");
  expect_error("[-", "invalid number at byte 1");
}

TEST(JsonLenientRepairs, AllAtOnce) {
  std::string text =
      "```json\n"
      "{\n"
      "  itemId: 'cfg', // key\n"
      "  \u201Cvalue\u201D: {on: True, off: False, none: None, /* block */ list: [1, 2,],},\n"
      "  \"text\": \"two\nlines\\u0021\", 'it\\'s': \"a\\'b\",\n"
      "  \"open\": \"cut";
  LenientResult r = parse_lenient(text);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value, json::parse(R"({"itemId":"cfg","value":{"on":true,"off":false,"none":null,"list":[1,2]},
        "text":"two\nlines!","it's":"a'b","open":"cut"})"));
  EXPECT_EQ(r.repairs, (Repairs{"code-fence", "unquoted-key", "single-quotes", "comment", "curly-quotes",
                                "python-literal", "trailing-comma", "raw-newline", "escaped-apostrophe",
                                "unclosed-string", "missing-close"}));
  EXPECT_EQ(r.consumed, text.size());
}

// ---- Strict parts: escapes, numbers, errors ----

TEST(JsonLenientStrings, Escapes) {
  expect_reads(R"(["\"\\\/\b\f\n\r\t"])", R"(["\"\\/\b\f\n\r\t"])", {});
  expect_reads(R"(["\u0041\u00e9\u20ac\uD83D\uDE00"])", "[\"A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"]", {});
  // Lone surrogates become U+FFFD.
  expect_reads(R"(["\ud800", "\udc00", "\ud800x", "\ud800\u0041", "\udbff\udfff"])",
               "[\"\xEF\xBF\xBD\",\"\xEF\xBF\xBD\",\"\xEF\xBF\xBDx\",\"\xEF\xBF\xBD"
               "A\",\"\xF4\x8F\xBF\xBF\"]",
               {});
  expect_reads(R"(["\u0000"])", R"(["\u0000"])", {});
  expect_error(R"(["\x41"])", "invalid escape at byte 2");
  expect_error(R"(["\u00G1"])", "invalid \\u escape at byte 2");
  expect_error("[\"a\\\nb\"]", "invalid escape at byte 3");
}

TEST(JsonLenientStrings, DuplicateKeyKeepsTheLast) {
  expect_reads(R"({"a": 1, "b": 2, "a": 3})", R"({"a":3,"b":2})", {});
}

TEST(JsonLenientNumbers, Kinds) {
  LenientResult r = parse_lenient(
      "[0, -0, 42, -42, 9223372036854775807, -9223372036854775808, 9223372036854775808, "
      "18446744073709551615, 18446744073709551616, -9223372036854775809, 1.5, -2.5e3, 1E2, 1e-2, 0.0]");
  ASSERT_TRUE(r.ok) << r.error;
  const json::array& a = r.value.as_array();
  ASSERT_EQ(a.size(), 15u);
  EXPECT_EQ(a[0].as_int64(), 0);
  EXPECT_EQ(a[1].as_int64(), 0);
  EXPECT_EQ(a[2].as_int64(), 42);
  EXPECT_EQ(a[3].as_int64(), -42);
  EXPECT_EQ(a[4].as_int64(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(a[5].as_int64(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(a[6].as_uint64(), 9223372036854775808ull);
  EXPECT_EQ(a[7].as_uint64(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_DOUBLE_EQ(a[8].as_double(), 18446744073709551616.0);
  EXPECT_DOUBLE_EQ(a[9].as_double(), -9223372036854775809.0);
  EXPECT_DOUBLE_EQ(a[10].as_double(), 1.5);
  EXPECT_DOUBLE_EQ(a[11].as_double(), -2500.0);
  EXPECT_DOUBLE_EQ(a[12].as_double(), 100.0);
  EXPECT_DOUBLE_EQ(a[13].as_double(), 0.01);
  EXPECT_TRUE(a[14].is_double());
}

TEST(JsonLenientNumbers, RangeAndSyntax) {
  LenientResult r = parse_lenient("[1e-999, -1e-999, 0.00001e-400, 1e308]");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value.as_array()[0].as_double(), 0.0);
  EXPECT_TRUE(std::signbit(r.value.as_array()[1].as_double()));
  EXPECT_EQ(r.value.as_array()[2].as_double(), 0.0);
  expect_error("[1e999]", "number out of range at byte 1");
  expect_error("[-1e400]", "number out of range at byte 1");
  expect_error("[" + std::string(400, '9') + "]", "number out of range at byte 1");
  expect_error("[01]", "invalid number at byte 1");
  expect_error("[+1]", "expected a value at byte 1");
  expect_error("[.5]", "expected a value at byte 1");
  expect_error("[1.]", "invalid number at byte 1");
  expect_error("[1e]", "invalid number at byte 1");
  expect_error("[1e+]", "invalid number at byte 1");
  expect_error("[1x]", "invalid number at byte 1");
  expect_error("[1.2.3]", "invalid number at byte 1");
  expect_error("[1-2]", "invalid number at byte 1");
  expect_error("[- 1]", "invalid number at byte 1");
}

TEST(JsonLenientErrors, Messages) {
  expect_error("", "expected '{' or '[' at byte 0 (end of input)");
  expect_error("   ", "expected '{' or '[' at byte 3 (end of input)");
  expect_error("cats", "expected '{' or '[' at byte 0");
  expect_error("\"a\"", "expected '{' or '[' at byte 0");
  expect_error("42", "expected '{' or '[' at byte 0");
  expect_error("{\"a\": 1]", "expected ',' or '}' at byte 7");
  expect_error("[1}", "expected ',' or ']' at byte 2");
  expect_error("[1 2]", "expected ',' or ']' at byte 3");
  expect_error("{1: 2}", "expected a key or '}' at byte 1");
  expect_error("{\"a\": hello}", "unexpected 'hello' at byte 6");
  expect_error("{\"a\": @}", "expected a value at byte 6");
  expect_error("[" + std::string(40, 'x') + "]", "unexpected '" + std::string(32, 'x') + "...' at byte 1");
  expect_error("{\"a\"; 1}", "expected ':' after key at byte 4");
}

TEST(JsonLenientErrors, FailedResultReportsWhere) {
  LenientResult r = parse_lenient(R"({"itemId" "a", "value": 1})");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.consumed, 10u);
  // Repairs met before the error are still listed.
  r = parse_lenient("{'a' 1}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.repairs, Repairs{"single-quotes"});
}

TEST(JsonLenient, ConsumedStopsAtTheValue) {
  LenientResult r = parse_lenient("{\"a\": 1} thanks</setMemory>");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.consumed, 8u);
  r = parse_lenient("  [1]\n");
  EXPECT_EQ(r.consumed, 5u);
  // Comments after the top-level value are not part of it.
  r = parse_lenient("[1] // note");
  EXPECT_EQ(r.consumed, 3u);
  EXPECT_TRUE(r.repairs.empty());
}

// ---- Nesting ----

TEST(JsonLenientDepth, CapIs512) {
  std::string ok = std::string(512, '[') + std::string(512, ']');
  LenientResult r = parse_lenient(ok);
  EXPECT_TRUE(r.ok) << r.error;
  std::string deep = std::string(513, '[') + std::string(513, ']');
  expect_error(deep, "nesting too deep (over 512 levels) at byte 512");
}

TEST(JsonLenientDepth, HundredThousandOpenersFailWithoutRecursion) {
  expect_error(std::string(100000, '['), "nesting too deep (over 512 levels) at byte 512");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  expect_error(objects, "nesting too deep (over 512 levels) at byte 2560");
  // Missing closers repaired at the cap.
  LenientResult r = parse_lenient(std::string(512, '['));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.repairs, Repairs{"missing-close"});
}

// ---- Linear time ----

TEST(JsonLenientPerf, LargeInputsAreLinear) {
  // 256 KiB bodies of the shapes most likely to go quadratic: a huge string, many small members, many
  // elements, many comments.
  std::string big_string = "{\"v\": \"" + std::string(256 * 1024, 'a') + "\"}";
  std::string members = "{";
  for (int i = 0; members.size() < 256 * 1024; ++i)
    members += "k" + std::to_string(i) + ": " + std::to_string(i) + ",";
  std::string elements = "[";
  for (int i = 0; elements.size() < 256 * 1024; ++i) elements += "1,";
  std::string comments = "[";
  for (int i = 0; comments.size() < 256 * 1024; ++i) comments += "/**/1,";
  std::string open_comment = "[/*" + std::string(256 * 1024, '*');
  for (const std::string* text : {&big_string, &members, &elements, &comments, &open_comment}) {
    auto t0 = std::chrono::steady_clock::now();
    LenientResult r = parse_lenient(*text);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_LT(ms.count(), 2000);
  }
}

// ---- Sequences (5.4: several values in a row) ----

TEST(JsonLenientSequence, Vector084WhitespaceSeparated) {
  std::string text = R"({"itemId":"a","value":1} {"itemId":"b","value":2})";
  std::size_t stop = 0;
  auto rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].value, json::parse(R"({"itemId":"a","value":1})"));
  EXPECT_EQ(rs[1].value, json::parse(R"({"itemId":"b","value":2})"));
  EXPECT_EQ(rs[0].consumed, 24u);
  EXPECT_EQ(rs[1].consumed, text.size());
  EXPECT_EQ(stop, text.size());
}

TEST(JsonLenientSequence, Vector098CommaSeparated) {
  std::string text = "{\"itemId\":\"a\",\"value\":1},\n{\"itemId\":\"b\",\"value\":2}";
  std::size_t stop = 0;
  auto rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_TRUE(rs[0].ok && rs[1].ok);
  EXPECT_EQ(stop, text.size());
}

TEST(JsonLenientSequence, Vector099Arrays) {
  auto rs = parse_lenient_sequence(R"(["k1"] ["k2", "k3"])");
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[1].value, json::parse(R"(["k2","k3"])"));
}

TEST(JsonLenientSequence, StopsAtText) {
  std::string text = "{\"itemId\": \"a\"} and more text";
  std::size_t stop = 0;
  auto rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(stop, text.find('}') + 1);
  // Separators with no value after them are left for the caller.
  text = "[1], [2],\n thanks";
  rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(stop, text.find("[2]") + 3);
  // Two commas are not one separator.
  text = "[1],, [2]";
  rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(stop, 3u);
}

TEST(JsonLenientSequence, Vector102ClosingFenceWithoutOpener) {
  std::string text = "{\"itemId\": \"old\"}\n```\n";
  std::size_t stop = 0;
  auto rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(stop, text.size());
  EXPECT_EQ(rs[0].repairs, Repairs{"code-fence"});
  EXPECT_EQ(rs[0].consumed, text.find('}') + 1);
}

TEST(JsonLenientSequence, FencedValues) {
  std::string text = "```json\n{\"a\": 1}\n{\"b\": 2}\n```\nafter";
  std::size_t stop = 0;
  auto rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].repairs, Repairs{"code-fence"});
  EXPECT_TRUE(rs[1].repairs.empty());
  EXPECT_EQ(rs[1].consumed, text.find("after"));
  EXPECT_EQ(stop, text.find("after"));
  // After the closing fence nothing more is read.
  text = "```\n[1]\n```\n[2]";
  rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(stop, text.find("[2]"));
}

TEST(JsonLenientSequence, FailureEndsTheSequence) {
  std::string text = "[1] {\"a\" 1} [3]";
  std::size_t stop = 0;
  auto rs = parse_lenient_sequence(text, &stop);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_TRUE(rs[0].ok);
  EXPECT_FALSE(rs[1].ok);
  EXPECT_EQ(rs[1].error, "expected ':' after key at byte 9");
  EXPECT_EQ(stop, 9u);
}

TEST(JsonLenientSequence, NoValue) {
  std::size_t stop = 99;
  auto rs = parse_lenient_sequence("cats", &stop);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_FALSE(rs[0].ok);
  EXPECT_EQ(stop, 0u);
}

TEST(JsonLenientSequence, LastValueRepaired) {
  std::size_t stop = 0;
  auto rs = parse_lenient_sequence("[1] [2, 3", &stop);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[1].value, json::parse("[2,3]"));
  EXPECT_EQ(rs[1].repairs, Repairs{"missing-close"});
  EXPECT_EQ(stop, 9u);
}

// ---- Randomized round trip: serialize random values, read them back ----

json::value random_scalar(std::mt19937& rng) {
  switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
    case 0:
      return nullptr;
    case 1:
      return std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    case 2:
      return std::uniform_int_distribution<std::int64_t>(-1000, 1000)(rng);
    case 3:
      return std::uniform_int_distribution<std::int64_t>(std::numeric_limits<std::int64_t>::min(),
                                                         std::numeric_limits<std::int64_t>::max())(rng);
    case 4:
      return std::uniform_int_distribution<std::uint64_t>(
          std::uint64_t(std::numeric_limits<std::int64_t>::max()) + 1,
          std::numeric_limits<std::uint64_t>::max())(rng);
    case 5: {
      double d = std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
      return std::ldexp(d, std::uniform_int_distribution<int>(-1000, 1000)(rng));
    }
    default:
      return json::string(sigil::testing::random_json_pieces(rng, 12));
  }
}

json::value random_value(std::mt19937& rng, int depth) {
  int kind = std::uniform_int_distribution<int>(0, depth > 5 ? 0 : 3)(rng);
  if (kind == 1) {
    json::array a;
    for (int n = std::uniform_int_distribution<int>(0, 5)(rng); n > 0; --n)
      a.push_back(random_value(rng, depth + 1));
    return a;
  }
  if (kind == 2) {
    json::object o;
    for (int n = std::uniform_int_distribution<int>(0, 5)(rng); n > 0; --n)
      o[sigil::testing::random_json_pieces(rng, 6)] = random_value(rng, depth + 1);
    return o;
  }
  return random_scalar(rng);
}

TEST(JsonLenientProperty, StrictRoundTrip) {
  std::mt19937 rng(20261121);
  for (int i = 0; i < 3000; ++i) {
    json::value v = random_value(rng, 0);
    if (!v.is_object() && !v.is_array()) v = json::array{v};
    std::string text = json::serialize(v);
    LenientResult r = parse_lenient(text);
    ASSERT_TRUE(r.ok) << r.error << "\n" << text;
    ASSERT_EQ(r.value, v) << text << "\n" << json::serialize(r.value);
    ASSERT_TRUE(r.repairs.empty()) << text;
    ASSERT_EQ(r.consumed, text.size());
    // Boost agrees that what was read serializes back to the same text.
    ASSERT_EQ(json::serialize(r.value), text);
  }
}

TEST(JsonLenientProperty, EveryPrefixOfStrictJsonIsRepairedOrFailsCleanly) {
  // A body cut anywhere (5.4, 11.6) either reads with repairs or fails with a message; it never crashes, and
  // a successful read of a prefix is valid JSON.
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    json::value v = random_value(rng, 0);
    if (!v.is_object() && !v.is_array()) v = json::object{{"k", v}};
    std::string text = json::serialize(v);
    for (std::size_t cut = 1; cut <= text.size(); ++cut) {
      // The caller never hands over half a UTF-8 sequence (10.4, 11.3).
      if (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) continue;
      LenientResult r = parse_lenient(std::string_view(text).substr(0, cut));
      if (r.ok) {
        ASSERT_NO_THROW(json::parse(json::serialize(r.value)));
        ASSERT_EQ(r.consumed, cut);
      } else {
        ASSERT_FALSE(r.error.empty());
        ASSERT_LE(r.consumed, cut);
      }
    }
  }
}

}  // namespace
