// Argument validation rules (spec section 9, 3.3, 5.1-5.2, 5.6) beyond the conformance vectors: conversions,
// notes, error messages, shapes, and validation against a lone ActionSpec.
#include "sigil/catalog/validate.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "sigil/catalog/builtin_catalog.h"
#include "sigil/catalog/spec_builders.h"
#include "spec_test_support.h"

namespace sigil::catalog {
namespace {

namespace json = boost::json;
using test_support::conformance_registry;
using test_support::has_note;
using test_support::same_json;
using test_support::validate_markup;

const Registry& reg() {
  static const Registry r = conformance_registry();
  return r;
}

parse::Validated v(std::string_view markup) { return validate_markup(reg(), markup); }

void expect_args(const parse::Validated& got, std::string_view want) {
  EXPECT_TRUE(same_json(got.args, json::parse(want)))
      << "got " << json::serialize(got.args) << ", want " << want;
}

parse::Body json_body(std::string_view text) {
  parse::Body b;
  b.kind = parse::Body::Kind::Json;
  b.json = json::parse(text);
  return b;
}

parse::Body text_body(std::string text) {
  parse::Body b;
  b.kind = parse::Body::Kind::Text;
  b.text = std::move(text);
  return b;
}

parse::Body error_body(std::string message) {
  parse::Body b;
  b.kind = parse::Body::Kind::JsonError;
  b.error = std::move(message);
  return b;
}

parse::Attribute attr(std::string key, std::string value) { return {std::move(key), std::move(value), true}; }
parse::Attribute flag(std::string key) { return {std::move(key), "", false}; }

// ------------------------------------------------------------------------------------------ error messages

TEST(ValidateErrors, OneClearLinePerProblem) {
  EXPECT_EQ(v(R"(<send-file path="/tmp/a.zip" cleanup="maybe"/>)").error,
            R"(send-file: "cleanup" must be a boolean (got "maybe"))");
  EXPECT_EQ(v(R"(<scheduleTask>{"message": "Stretch"}</scheduleTask>)").error,
            R"(scheduleTask: give exactly one of "delay" or "time")");
  EXPECT_EQ(v(R"(<react/>)").error,
            R"(react: missing required parameter "emoji" (write <react emoji="…"/>))");
  EXPECT_EQ(v(R"(<react emoji=" "/>)").error, R"(react: required parameter "emoji" is empty)");
  EXPECT_EQ(v("[CORRECT:only old]").error,
            R"(correct: missing required parameter "new" (write [CORRECT:old:new]))");
  EXPECT_EQ(v("[REQUEST_TIER:high:summary]").error,
            R"(request-tier: "level" must be an integer (got "high"))");
  EXPECT_EQ(v(R"(<send-file path="/a" chat="1"/>)").error,
            R"(send-file: give both "channel" and "chat", or neither)");
  EXPECT_EQ(v(R"(<sendTelegram channel="slack" chat="1">hi</sendTelegram>)").error,
            R"(send-message: "channel" must be "telegram" in <sendTelegram> (got "slack"))");
  EXPECT_EQ(v(R"(<archiveItems>[]</archiveItems>)").error,
            R"(archiveItems: "items" must be a non-empty array)");
  EXPECT_EQ(v(R"(<voice/>)").error,
            R"(voice: missing required parameter "text" (write <voice>text</voice>))");
  EXPECT_EQ(v(R"(<setMemory>{"value": 1}</setMemory>)").error,
            R"(setMemory: missing required parameter "itemId" (write <setMemory>{"itemId": …}</setMemory>))");
  EXPECT_EQ(v(R"(<send-message>hi</send-message>)").error,
            R"(send-message: missing required parameters "channel" and "chat")");
  EXPECT_EQ(v(R"(<setMemory>remember this</setMemory>)").error,
            "setMemory: the body of <setMemory> must be a JSON object {…}, not text");
}

TEST(ValidateErrors, SeveralProblemsAreJoined) {
  auto r = v(R"(<scheduleTask>{"delay": "2w", "time": "soon"}</scheduleTask>)");
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.error, R"(scheduleTask: "delay" must be a duration like 30m, 2h or 1.5d (got "2w"); )"
                     R"("time" must be a date and time like 2025-06-01 18:00 (got "soon"); )"
                     R"(missing required parameter "message" (write <scheduleTask>message</scheduleTask>); )"
                     R"(give exactly one of "delay" or "time")");
}

TEST(ValidateErrors, LongOrMultiLineValuesAreShownOnOneShortLine) {
  std::string value(200, 'x');
  value += "\nmore";
  auto r = reg().validate_tag(reg().tag_spelling("send-file"),
                              std::vector{attr("path", "/a"), attr("cleanup", value)}, {});
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
  EXPECT_LT(r.error.size(), 140u);
  EXPECT_TRUE(same_json(r.args.at("cleanup"), json::value(value)));  // args keep the full written value
}

TEST(ValidateErrors, JsonErrorCarriesTheReadersMessage) {
  auto r = reg().validate_tag(reg().tag_spelling("setMemory"), std::vector{attr("itemId", "a")},
                              error_body("expected ':' at line 1"));
  EXPECT_FALSE(r.valid);
  expect_args(r, "{}");  // attributes too: unparseable JSON lists {} (9.4)
  EXPECT_EQ(r.error, "setMemory: the JSON body of <setMemory> does not parse: expected ':' at line 1");
}

// ------------------------------------------------------------------------------------------ notes

TEST(ValidateNotes, DuplicateKeyDirectViaAliasAndByBody) {
  auto direct = v(R"(<react emoji="a" EMOJI="b"/>)");
  EXPECT_TRUE(direct.valid);
  expect_args(direct, R"({"emoji": "b"})");
  EXPECT_TRUE(has_note(direct, "duplicate-key"));

  auto alias = v(R"(<send-file file="/a" path="/b"/>)");
  expect_args(alias, R"({"path": "/b"})");
  EXPECT_TRUE(has_note(alias, "duplicate-key"));

  auto body = v(R"(<file path="/a">/b</file>)");
  expect_args(body, R"({"path": "/b"})");
  EXPECT_TRUE(has_note(body, "duplicate-key"));

  auto json_key = v(R"(<googleSearch query="cats">{"Query": "dogs"}</googleSearch>)");
  expect_args(json_key, R"({"query": "dogs"})");
  EXPECT_TRUE(has_note(json_key, "duplicate-key"));
}

TEST(ValidateNotes, DuplicateKeepsTheLastEvenWhenEmpty) {
  auto r = v(R"(<react emoji="👍" emoji=""/>)");
  EXPECT_FALSE(r.valid);
  expect_args(r, R"({"emoji": ""})");
}

TEST(ValidateNotes, UnknownKeyDroppedStillValid) {
  auto r = v(R"(<deleteItem>{"itemId": "a", "reason": "old"}</deleteItem>)");
  EXPECT_TRUE(r.valid);
  expect_args(r, R"({"itemId": "a"})");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].code, "unknown-key");
  EXPECT_NE(r.notes[0].message.find("\"reason\""), std::string::npos);
}

TEST(ValidateNotes, UnknownKindFallsBackToAuto) {
  auto r = v(R"(<file mode="gif">/tmp/a.gif</file>)");
  EXPECT_TRUE(r.valid);
  expect_args(r, R"({"path": "/tmp/a.gif", "kind": "auto"})");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].code, "unknown-kind");
}

TEST(ValidateNotes, CleanDirectiveHasNone) {
  EXPECT_TRUE(v(R"(<send-file path="/a" kind="photo" cleanup/>)").notes.empty());
  EXPECT_TRUE(v("[CORRECT:a:b]").notes.empty());
}

// ------------------------------------------------------------------------------------------ conversions

TEST(ValidateConvert, StringsFromJsonNumbers) {
  expect_args(v(R"(<deleteItem>{"itemId": 42}</deleteItem>)"), R"({"itemId": "42"})");
  expect_args(v(R"(<deleteItem>{"itemId": 1.5}</deleteItem>)"), R"({"itemId": "1.5"})");
  expect_args(v(R"(<deleteItem>{"itemId": -7}</deleteItem>)"), R"({"itemId": "-7"})");
  expect_args(v(R"(<deleteItem>{"itemId": 18446744073709551615}</deleteItem>)"),
              R"({"itemId": "18446744073709551615"})");
  auto b = v(R"(<deleteItem>{"itemId": true}</deleteItem>)");
  EXPECT_FALSE(b.valid);
  expect_args(b, R"({"itemId": true})");
  EXPECT_FALSE(v(R"(<deleteItem>{"itemId": {"a": 1}}</deleteItem>)").valid);
}

TEST(ValidateConvert, StringsKeepWhatWasWritten) {
  // Not trimmed when valid (2.3); a JSON string too.
  expect_args(v(R"(<deleteItem>{"itemId": " a "}</deleteItem>)"), R"({"itemId": " a "})");
}

TEST(ValidateConvert, Integers) {
  auto r = [](std::string_view topk) {
    return v(std::string(R"(<searchArchive>{"query": "q", "topK": )") + std::string(topk) +
             "}</searchArchive>");
  };
  const std::pair<std::string_view, std::string_view> converted[] = {
      {"\"10\"", R"({"query": "q", "topK": 10})"}, {"\" 7 \"", R"({"query": "q", "topK": 7})"},
      {"\"+3\"", R"({"query": "q", "topK": 3})"},  {"\"5.0\"", R"({"query": "q", "topK": 5})"},
      {"4.0", R"({"query": "q", "topK": 4})"},     {"-2", R"({"query": "q", "topK": -2})"},
  };
  for (const auto& [written, want] : converted) expect_args(r(written), want);
  for (std::string_view bad : {"\"many\"", "2.5", "\"2.5\"", "true", "\"\"", "\"1x\"", "\"inf\"", "\"nan\"",
                               "\"99999999999999999999\"", "[1]"}) {
    auto got = r(bad);
    if (bad == "\"\"") {
      EXPECT_TRUE(got.valid) << bad;  // an empty optional value is missing: left out
      expect_args(got, R"({"query": "q"})");
      continue;
    }
    EXPECT_FALSE(got.valid) << bad;
    EXPECT_TRUE(same_json(got.args.at("topK"), json::parse(bad))) << bad;  // as written (9.4)
  }
  // Integers beyond int64 stay exact.
  expect_args(v(R"(<deleteScheduledTask>{"timestamp": 18446744073709551615}</deleteScheduledTask>)"),
              R"({"timestamp": 18446744073709551615})");
}

TEST(ValidateConvert, Numbers) {
  auto r = [](std::string_view score) {
    return v(std::string(R"(<searchArchive>{"query": "q", "minScore": )") + std::string(score) +
             "}</searchArchive>");
  };
  const std::pair<std::string_view, std::string_view> converted[] = {
      {"\"0.25\"", R"({"query": "q", "minScore": 0.25})"},
      {"\"-1e2\"", R"({"query": "q", "minScore": -100})"},
      {"\"3\"", R"({"query": "q", "minScore": 3})"},
      {"0.5", R"({"query": "q", "minScore": 0.5})"},
  };
  for (const auto& [written, want] : converted) expect_args(r(written), want);
  EXPECT_TRUE(r("\"3\"").args.at("minScore").is_int64());
  for (std::string_view bad : {"\"soon\"", "\"inf\"", "\"NaN\"", "\"0x10\"", "\"1,5\"", "\"++1\"", "false"}) {
    auto got = r(bad);
    EXPECT_FALSE(got.valid) << bad;
    EXPECT_TRUE(same_json(got.args.at("minScore"), json::parse(bad))) << bad;
  }
}

TEST(ValidateConvert, Booleans) {
  auto r = [](std::string_view value) {
    return v(std::string(R"(<send-file path="/a" cleanup=")") + std::string(value) + "\"/>");
  };
  for (std::string_view t : {"true", "TRUE", "Yes", "on", "1", " yes "})
    EXPECT_EQ(r(t).args.at("cleanup"), true) << t;
  for (std::string_view f : {"false", "No", "OFF", "0"}) EXPECT_EQ(r(f).args.at("cleanup"), false) << f;
  EXPECT_FALSE(r("2").valid);
  EXPECT_FALSE(r("y").valid);
  // From JSON.
  const int file = reg().tag_spelling("send-file");
  auto from_json = [&](std::string_view value) {
    parse::Body b;  // send-file has no json spelling; validate_tag reads a Json body all the same
    b.kind = parse::Body::Kind::Json;
    b.json = json::parse(std::string(R"({"path": "/a", "cleanup": )") + std::string(value) + "}");
    return reg().validate_tag(file, {}, b);
  };
  EXPECT_EQ(from_json("true").args.at("cleanup"), true);
  EXPECT_EQ(from_json("1").args.at("cleanup"), true);
  EXPECT_EQ(from_json("0").args.at("cleanup"), false);
  EXPECT_FALSE(from_json("2").valid);
  EXPECT_FALSE(from_json("[]").valid);
}

TEST(ValidateConvert, ValuelessKeys) {
  // true for a boolean parameter, an empty value otherwise (2.2).
  expect_args(v(R"(<send-file path="/a" cleanup/>)"), R"({"path": "/a", "cleanup": true})");
  expect_args(v(R"(<send-file path="/a" caption/>)"), R"({"path": "/a"})");
  auto r = v(R"(<send-file path caption="x"/>)");
  EXPECT_FALSE(r.valid);
  expect_args(r, R"({"path": "", "caption": "x"})");
  auto k = v(R"(<send-file path="/a" kind/>)");
  EXPECT_TRUE(k.valid);
  expect_args(k, R"({"path": "/a"})");
}

TEST(ValidateConvert, Enums) {
  for (auto [written, canonical] : std::vector<std::pair<std::string, std::string>>{{"doc", "document"},
                                                                                    {"Document", "document"},
                                                                                    {"FILE", "document"},
                                                                                    {"photo", "image"},
                                                                                    {"image", "image"},
                                                                                    {"video", "video"},
                                                                                    {"audio", "audio"},
                                                                                    {"voice", "voice"},
                                                                                    {"auto", "auto"},
                                                                                    {" Photo ", "image"}}) {
    auto r = v(R"(<send-file path="/a" mode=")" + written + "\"/>");
    EXPECT_TRUE(r.valid) << written;
    EXPECT_EQ(r.args.at("kind"), json::value(canonical)) << written;
    EXPECT_TRUE(r.notes.empty()) << written;
  }
}

TEST(ValidateConvert, EmptyValuesLeftOutWhenValidKeptWhenInvalid) {
  expect_args(v(R"(<send-file path="/a" caption="  " kind=""/>)"), R"({"path": "/a"})");
  expect_args(v(R"(<send-file path="" caption="  " kind=""/>)"),
              R"({"path": "", "caption": "  ", "kind": ""})");
  // JSON null counts as missing for typed parameters.
  expect_args(v(R"(<setMemory>{"itemId": "a", "value": 1, "expirationInMinutes": null}</setMemory>)"),
              R"({"itemId": "a", "value": 1})");
  auto r = v(R"(<setMemory>{"itemId": null, "value": 1}</setMemory>)");
  EXPECT_FALSE(r.valid);
  expect_args(r, R"({"itemId": null, "value": 1})");
}

TEST(ValidateConvert, AnyJsonTakesEveryValueButBlankText) {
  expect_args(v(R"(<setMemory>{"itemId": "a", "value": null}</setMemory>)"),
              R"({"itemId": "a", "value": null})");
  expect_args(v(R"(<setMemory>{"itemId": "a", "value": false}</setMemory>)"),
              R"({"itemId": "a", "value": false})");
  expect_args(v(R"(<setMemory itemId="a" value="dark"/>)"), R"({"itemId": "a", "value": "dark"})");
  EXPECT_FALSE(v(R"(<setMemory>{"itemId": "a", "value": " "}</setMemory>)").valid);
}

TEST(ValidateConvert, Arrays) {
  expect_args(v(R"(<archiveItems>{"items": ["a", 2]}</archiveItems>)"), R"({"items": ["a", "2"]})");
  auto bad = v(R"(<archiveItems>{"items": ["a", {"x": 1}]}</archiveItems>)");
  EXPECT_FALSE(bad.valid);
  expect_args(bad, R"({"items": ["a", {"x": 1}]})");
  EXPECT_EQ(bad.error, R"(archiveItems: "items" must be an array of strings (got ["a",{"x":1}]))");
  expect_args(v(R"(<archiveItems items='["k1", "k2"]'/>)"), R"({"items": ["k1", "k2"]})");
  auto text = v(R"(<archiveItems items="k1"/>)");
  EXPECT_FALSE(text.valid);
  expect_args(text, R"({"items": "k1"})");
  EXPECT_FALSE(v(R"(<archiveItems>{"items": "k1"}</archiveItems>)").valid);
  EXPECT_FALSE(v(R"(<archiveItems>{}</archiveItems>)").valid);
}

TEST(ValidateConvert, ArrayBodyNeedsAnArrayParameter) {
  auto r = v(R"(<setMemory>[1, 2]</setMemory>)");
  EXPECT_FALSE(r.valid);
  expect_args(r, "{}");
}

TEST(ValidateConvert, DurationsAndDatetimesAsWrittenTrimmed) {
  expect_args(v(R"(<scheduleTask delay=" 1.5d ">go</scheduleTask>)"),
              R"({"delay": "1.5d", "message": "go"})");
  expect_args(v(R"(<scheduleTask time="2025-06-01T18:00">go</scheduleTask>)"),
              R"({"time": "2025-06-01T18:00", "message": "go"})");
}

TEST(ValidateShapes, Duration) {
  for (std::string_view ok : {"30m", "2h", "1d", "1.5d", "0m", "120m", "10.25h"})
    EXPECT_TRUE(is_duration(ok)) << ok;
  for (std::string_view bad :
       {"", "m", "30", "2w", "1.d", ".5h", "30M", "30 m", "-1h", "1h30m", "+1h", "1.5.5d"}) {
    EXPECT_FALSE(is_duration(bad)) << bad;
  }
}

TEST(ValidateShapes, Datetime) {
  for (std::string_view ok :
       {"2025-06-01 18:00", "2025-06-01T18:00", "2025-06-01 18:00:30", "2025-06-01T18:00:30Z",
        "2025-06-01 18:00+02:00", "2025-06-01 18:00:59-05:30", "2025-12-31 23:59Z"}) {
    EXPECT_TRUE(is_datetime(ok)) << ok;
  }
  for (std::string_view bad :
       {"", "soon", "2025-06-01", "2025-06-01 18", "2025-6-01 18:00", "2025-06-01t18:00", "2025-06-01 18:00z",
        "2025-06-01 18:00 +02:00", "2025-06-01 18:00+0200", "2025-13-01 18:00", "2025-06-00 18:00",
        "2025-06-01 24:00", "2025-06-01 18:60", "2025-06-01 18:00:", "2025-06-01 18:00:30Zx",
        "25-06-01 18:00", "2025/06/01 18:00"}) {
    EXPECT_FALSE(is_datetime(bad)) << bad;
  }
}

TEST(ValidateShapes, Boolean) {
  EXPECT_EQ(parse_boolean("On"), true);
  EXPECT_EQ(parse_boolean("nO"), false);
  EXPECT_EQ(parse_boolean("yes please"), std::nullopt);
  EXPECT_EQ(parse_boolean(""), std::nullopt);
}

// ------------------------------------------------------------------------------------------ brackets (3.3)

TEST(ValidateBrackets, SplitAtTheFirstNMinusOneColons) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_bracket_args("a:b:c", 1), (V{"a:b:c"}));
  EXPECT_EQ(split_bracket_args(" a : b:c ", 2), (V{"a", "b:c"}));
  EXPECT_EQ(split_bracket_args("a:b:c", 3), (V{"a", "b", "c"}));
  EXPECT_EQ(split_bracket_args("only", 2), (V{"only"}));
  EXPECT_EQ(split_bracket_args("x:", 2), (V{"x", ""}));
  EXPECT_EQ(split_bracket_args("", 2), (V{""}));
  EXPECT_EQ(split_bracket_args("a", 0), V{});
}

TEST(ValidateBrackets, NoArgsAndEmptyArgs) {
  const int search = reg().bracket_spelling("SEARCH");
  auto bare = reg().validate_bracket(search, "", false);
  EXPECT_FALSE(bare.valid);
  expect_args(bare, "{}");
  auto empty = reg().validate_bracket(search, "", true);
  EXPECT_FALSE(empty.valid);
  expect_args(empty, R"({"query": ""})");
  auto both_empty = reg().validate_bracket(reg().bracket_spelling("CORRECT"), " : ", true);
  EXPECT_FALSE(both_empty.valid);
  expect_args(both_empty, R"({"old": "", "new": ""})");
}

TEST(ValidateBrackets, LevelConvertsEvenWhenInvalid) {
  auto r = v("[REQUEST_TIER: 2 ]");
  EXPECT_FALSE(r.valid);
  expect_args(r, R"({"level": 2})");
  EXPECT_EQ(r.error,
            R"(request-tier: missing required parameter "content" (write [REQUEST_TIER:level:content]))");
}

TEST(ValidateBrackets, WrongDialectIsInvalidNotACrash) {
  auto r = reg().validate_bracket(reg().tag_spelling("react"), "x", true);
  EXPECT_FALSE(r.valid);
  auto t = reg().validate_tag(reg().bracket_spelling("SEARCH"), {}, {});
  EXPECT_FALSE(t.valid);
}

// ------------------------------------------------------------------------------------------ bodies
// (5.1, 5.2)

TEST(ValidateBodies, TextBodyOfJsonSpellingIsTheBodyParameter) {
  expect_args(v("<sendTelegram>Running late</sendTelegram>"), R"({"text": "Running late"})");
  for (const char* m :
       {"<setMemory>x</setMemory>", "<archiveItems>k1</archiveItems>",
        "<getScheduledTasks>all</getScheduledTasks>", "<deleteScheduledTask>t</deleteScheduledTask>"}) {
    auto r = v(m);
    EXPECT_FALSE(r.valid) << m;
    expect_args(r, "{}");
  }
  // Attributes are dropped from args with such a body: it cannot be read at all.
  auto r =
      reg().validate_tag(reg().tag_spelling("setMemory"), std::vector{attr("itemId", "a")}, text_body("x"));
  EXPECT_FALSE(r.valid);
  expect_args(r, "{}");
}

TEST(ValidateBodies, BlankTextOfJsonSpellingMeansEmptyObject) {
  auto r = reg().validate_tag(reg().tag_spelling("getScheduledTasks"), {}, text_body(""));
  EXPECT_TRUE(r.valid);
  expect_args(r, "{}");
}

TEST(ValidateBodies, NoneTagIgnoresAnyBody) {
  auto r = reg().validate_tag(reg().tag_spelling("react"), std::vector{attr("emoji", "x")}, text_body("yay"));
  EXPECT_TRUE(r.valid);
  expect_args(r, R"({"emoji": "x"})");
}

TEST(ValidateBodies, BodyComesAfterAttributes) {
  auto r = reg().validate_tag(reg().tag_spelling("webpageToText"), std::vector{attr("url", "a")},
                              json_body(R"({"url": "b"})"));
  expect_args(r, R"({"url": "b"})");
  auto t = reg().validate_tag(reg().tag_spelling("voice"), std::vector{attr("text", "a")}, text_body("b"));
  expect_args(t, R"({"text": "b"})");
  EXPECT_TRUE(has_note(t, "duplicate-key"));
}

TEST(ValidateBodies, MarkupKeptExactly) {
  auto r = reg().validate_tag(reg().tag_spelling("publishWebPage"), {}, text_body("  <p>a &amp; b</p>\n"));
  EXPECT_TRUE(r.valid);
  expect_args(r, R"({"html": "  <p>a &amp; b</p>\n"})");
  auto blank = reg().validate_tag(reg().tag_spelling("publishWebPage"), {}, text_body(" \n "));
  EXPECT_FALSE(blank.valid);
  expect_args(blank, R"({"html": " \n "})");
}

TEST(ValidateBodies, SayValidatesLikeATextBody) {
  const int say = reg().tag_spelling("say");
  expect_args(reg().validate_tag(say, {}, text_body("Hi")), R"({"text": "Hi"})");
  auto empty = reg().validate_tag(say, {}, text_body(""));
  EXPECT_FALSE(empty.valid);
  expect_args(empty, R"({"text": ""})");
}

// ------------------------------------------------------------------------------------------ presets (9.6)

TEST(ValidatePresets, FixedChannelComparedCaseInsensitivelyAndListedAsWritten) {
  auto r = v(R"(<sendTelegram channel="Telegram">hi</sendTelegram>)");
  EXPECT_TRUE(r.valid) << r.error;
  expect_args(r, R"({"channel": "Telegram", "text": "hi"})");
  auto json_channel = v(R"(<sendTelegram>{"channel": "slack", "text": "hi"}</sendTelegram>)");
  EXPECT_FALSE(json_channel.valid);
  expect_args(json_channel, R"({"channel": "slack", "text": "hi"})");
  // A blank channel is missing: the fixed value applies.
  EXPECT_TRUE(v(R"(<sendTelegram channel="">hi</sendTelegram>)").valid);
}

// ------------------------------------------------------------------------------------------ rules

TEST(ValidateRules, DeleteScheduledTaskExactlyOne) {
  EXPECT_TRUE(v(R"(<deleteScheduledTask>{"id": "t"}</deleteScheduledTask>)").valid);
  EXPECT_TRUE(v(R"(<deleteScheduledTask>{"timestamp": 5}</deleteScheduledTask>)").valid);
  auto both = v(R"(<deleteScheduledTask>{"id": "t", "timestamp": 5}</deleteScheduledTask>)");
  EXPECT_FALSE(both.valid);
  EXPECT_EQ(both.error, R"(deleteScheduledTask: give exactly one of "id" or "timestamp")");
  expect_args(both, R"({"id": "t", "timestamp": 5})");
  // An empty value is not given.
  EXPECT_TRUE(v(R"(<deleteScheduledTask>{"id": "t", "timestamp": ""}</deleteScheduledTask>)").valid);
}

TEST(ValidateRules, AllOrNoneOfThree) {
  ActionSpec a;
  a.name = "route";
  a.params = {make_param("a"), make_param("b"), make_param("c")};
  a.rules = {{ParamRule::Kind::AllOrNone, {"a", "b", "c"}}};
  Spelling s = make_spelling(Dialect::Tag, "route");
  auto r = validate_tag(a, s, std::vector{attr("a", "1")}, {});
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.error, R"(route: give all of "a", "b", "c", or none)");
  EXPECT_TRUE(validate_tag(a, s, {}, {}).valid);
}

// ------------------------------------------------------------------------------------------ a lone
// ActionSpec

TEST(ValidateStandalone, EnumWithoutFallbackFailsWithTheChoices) {
  ActionSpec a;
  a.name = "paint";
  ParamSpec color = make_param("color", ParamType::Enum, true);
  color.enum_values = {{"red", "red"}, {"rot", "red"}, {"blue", "blue"}};
  a.params = {color};
  Spelling s = make_spelling(Dialect::Tag, "paint");
  auto ok = validate_tag(a, s, std::vector{attr("COLOR", "ROT")}, {});
  EXPECT_TRUE(ok.valid);
  expect_args(ok, R"({"color": "red"})");
  auto bad = validate_tag(a, s, std::vector{attr("color", "green")}, {});
  EXPECT_FALSE(bad.valid);
  EXPECT_EQ(bad.error, R"(paint: "color" must be one of red, blue (got "green"))");
  expect_args(bad, R"({"color": "green"})");
}

TEST(ValidateStandalone, BracketWithoutParametersIgnoresArgs) {
  ActionSpec a;
  a.name = "ping";
  Spelling s = make_spelling(Dialect::Bracket, "PING");
  auto r = validate_bracket(a, s, "x", true);
  EXPECT_TRUE(r.valid);
  EXPECT_TRUE(has_note(r, "unknown-key"));
  EXPECT_TRUE(validate_bracket(a, s, "", false).valid);
}

// ------------------------------------------------------------------------------------------ MCP (5.6)

TEST(ValidateMcp, AttributesAreStringsBodyKeptAsWritten) {
  auto r = validate_mcp("github", "list_issues", std::vector{attr("per_page", "5"), flag("draft")},
                        json_body(R"({"repo": "octo/hello", "page": 2, "Per_Page": 9})"));
  EXPECT_TRUE(r.valid);
  expect_args(r, R"({"server": "github", "tool": "list_issues",
                     "arguments": {"per_page": "5", "draft": "", "repo": "octo/hello", "page": 2, "Per_Page": 9}})");
  EXPECT_TRUE(r.notes.empty());  // MCP keys are the tool's: case matters
}

TEST(ValidateMcp, DuplicateKeyKeepsLast) {
  auto r = validate_mcp("github", "x", std::vector{attr("q", "a")}, json_body(R"({"q": "b"})"));
  EXPECT_TRUE(r.valid);
  expect_args(r, R"({"server": "github", "tool": "x", "arguments": {"q": "b"}})");
  EXPECT_TRUE(has_note(r, "duplicate-key"));
}

TEST(ValidateMcp, InvalidBodies) {
  for (const parse::Body& b : {text_body("sigil parser"), json_body("[1, 2]"), error_body("bad")}) {
    auto r = validate_mcp("github", "search_code", std::vector{attr("q", "a")}, b);
    EXPECT_FALSE(r.valid);
    expect_args(r, R"({"server": "github", "tool": "search_code", "arguments": {}})");
    EXPECT_EQ(r.error.rfind("mcp: ", 0), 0u) << r.error;
    EXPECT_NE(r.error.find("<mcp_github_search_code>"), std::string::npos) << r.error;
  }
  EXPECT_TRUE(validate_mcp("github", "x", {}, text_body("")).valid);
  EXPECT_FALSE(validate_mcp("github", "", {}, {}).valid);
}

// ------------------------------------------------------------------------------------------ catalogue data

TEST(Catalogue, ResultToInterruptsAndBodyParams) {
  struct Want {
    const char* name;
    ResultTo result_to;
    bool interrupts;
    const char* body_param;
  };
  const Want wants[] = {
      {"react", ResultTo::ModelOnError, false, ""},
      {"send-file", ResultTo::ModelOnError, false, "path"},
      {"voice", ResultTo::ModelOnError, false, "text"},
      {"send-message", ResultTo::ModelOnError, false, "text"},
      {"say", ResultTo::ModelOnError, false, "text"},
      {"remember", ResultTo::ModelOnError, false, "fact"},
      {"forget", ResultTo::ModelOnError, false, ""},
      {"correct", ResultTo::ModelOnError, false, ""},
      {"setMemory", ResultTo::ModelOnError, false, ""},
      {"deleteItem", ResultTo::ModelOnError, false, "itemId"},
      {"cleanupMemory", ResultTo::ModelOnError, false, ""},
      {"archiveItems", ResultTo::ModelOnError, false, ""},
      {"searchArchive", ResultTo::Model, false, "query"},
      {"request-tier", ResultTo::Model, false, ""},
      {"calculate", ResultTo::Inline, false, "expression"},
      {"search", ResultTo::Model, true, "query"},
      {"fetch-page", ResultTo::Model, true, "url"},
      {"createAIImage", ResultTo::ModelOnError, false, "prompt"},
      {"viewImage", ResultTo::Model, true, "url"},
      {"scheduleTask", ResultTo::ModelOnError, false, "message"},
      {"getScheduledTasks", ResultTo::Model, false, ""},
      {"deleteScheduledTask", ResultTo::ModelOnError, false, ""},
      {"publishWebPage", ResultTo::Model, false, "html"},
      {"command", ResultTo::ModelOnError, false, ""},
      {"mcp", ResultTo::Model, false, ""},
  };
  std::vector<ActionSpec> all = builtin_actions();
  ASSERT_EQ(all.size(), std::size(wants));
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].name, wants[i].name);
    EXPECT_EQ(all[i].result_to, wants[i].result_to) << wants[i].name;
    EXPECT_EQ(all[i].interrupts, wants[i].interrupts) << wants[i].name;
    EXPECT_EQ(all[i].body_param, wants[i].body_param) << wants[i].name;
  }
}

TEST(Catalogue, RequiredParameters) {
  auto required = [](const ActionSpec& a) {
    std::vector<std::string> out;
    for (const ParamSpec& p : a.params) {
      if (p.required) out.push_back(p.name);
    }
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(required(*reg().find_action("react")), (V{"emoji"}));
  EXPECT_EQ(required(*reg().find_action("send-file")), (V{"path"}));
  EXPECT_EQ(required(*reg().find_action("send-message")), (V{"channel", "chat", "text"}));
  EXPECT_EQ(required(*reg().find_action("setMemory")), (V{"itemId", "value"}));
  EXPECT_EQ(required(*reg().find_action("archiveItems")), (V{"items"}));
  EXPECT_EQ(required(*reg().find_action("searchArchive")), (V{"query"}));
  EXPECT_EQ(required(*reg().find_action("request-tier")), (V{"level", "content"}));
  EXPECT_EQ(required(*reg().find_action("scheduleTask")), (V{"message"}));
  EXPECT_EQ(required(*reg().find_action("deleteScheduledTask")), V{});
  EXPECT_EQ(required(*reg().find_action("getScheduledTasks")), V{});
  EXPECT_EQ(required(*reg().find_action("command")), (V{"name"}));
}

}  // namespace
}  // namespace sigil::catalog
