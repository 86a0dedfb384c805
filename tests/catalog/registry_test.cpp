// The registry's name tables, lookups, options and user-registered actions.
#include "sigil/catalog/registry.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <stdexcept>
#include <utility>

#include "sigil/catalog/builtin_catalog.h"
#include "sigil/catalog/spec_builders.h"
#include "spec_test_support.h"

namespace sigil::catalog {
namespace {

using parse::BodyKind;
using parse::TagRole;
using test_support::same_json;

const parse::TagName* find_tag(const Registry& r, std::string_view name) {
  for (const parse::TagName& t : r.tag_names()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const parse::BracketName* find_bracket(const Registry& r, std::string_view name) {
  for (const parse::BracketName& b : r.bracket_names()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

TEST(Registry, BuiltinTagNames) {
  Registry r = Registry::builtin();
  struct Want {
    const char* name;
    TagRole role;
    BodyKind body;
    std::size_t limit;
    const char* action;
    bool required;
    bool body_param;
  };
  constexpr std::size_t K = 1024;
  const Want wants[] = {
      {"react", TagRole::Action, BodyKind::None, 16 * K, "react", true, false},
      {"send-file", TagRole::Action, BodyKind::None, 16 * K, "send-file", true, true},
      {"file", TagRole::Action, BodyKind::Path, 4 * K, "send-file", true, true},
      {"voice", TagRole::Action, BodyKind::Text, 16 * K, "voice", true, true},
      {"send-message", TagRole::Action, BodyKind::Text, 16 * K, "send-message", true, true},
      {"sendtelegram", TagRole::Action, BodyKind::Json, 64 * K, "send-message", true, true},
      {"say", TagRole::Say, BodyKind::Content, static_cast<std::size_t>(-1), "say", true, true},
      {"remember", TagRole::Action, BodyKind::Text, 4 * K, "remember", true, true},
      {"setmemory", TagRole::Action, BodyKind::Json, 64 * K, "setMemory", true, false},
      {"deleteitem", TagRole::Action, BodyKind::Json, 64 * K, "deleteItem", true, true},
      {"cleanupmemory", TagRole::Action, BodyKind::None, 16 * K, "cleanupMemory", false, false},
      {"archiveitems", TagRole::Action, BodyKind::Json, 64 * K, "archiveItems", true, false},
      {"searcharchive", TagRole::Action, BodyKind::Json, 64 * K, "searchArchive", true, true},
      {"calculate", TagRole::Action, BodyKind::Text, 4 * K, "calculate", true, true},
      {"googlesearch", TagRole::Action, BodyKind::Json, 4 * K, "search", true, true},
      {"search", TagRole::Action, BodyKind::Json, 4 * K, "search", true, true},
      {"webpagetotext", TagRole::Action, BodyKind::Json, 4 * K, "fetch-page", true, true},
      {"scheduletask", TagRole::Action, BodyKind::Json, 64 * K, "scheduleTask", true, true},
      {"getscheduledtasks", TagRole::Action, BodyKind::Json, 64 * K, "getScheduledTasks", false, false},
      {"deletescheduledtask", TagRole::Action, BodyKind::Json, 64 * K, "deleteScheduledTask", true, false},
      {"publishwebpage", TagRole::Action, BodyKind::Markup, 256 * K, "publishWebPage", true, true},
      {"createaiimage", TagRole::Action, BodyKind::Json, 8 * K, "createAIImage", true, true},
      {"viewimage", TagRole::Action, BodyKind::Json, 4 * K, "viewImage", true, true},
  };
  std::size_t spellings = 0;
  for (const parse::TagName& t : r.tag_names()) spellings += t.spelling >= 0 ? 1 : 0;
  EXPECT_EQ(spellings, std::size(wants));
  for (const Want& w : wants) {
    const parse::TagName* t = find_tag(r, w.name);
    ASSERT_NE(t, nullptr) << w.name;
    EXPECT_EQ(t->role, w.role) << w.name;
    EXPECT_EQ(t->body, w.body) << w.name;
    EXPECT_EQ(t->body_limit, w.limit) << w.name;
    EXPECT_EQ(r.spelling(t->spelling).action, w.action) << w.name;
    EXPECT_EQ(t->has_required_params, w.required) << w.name;
    EXPECT_EQ(t->has_body_param, w.body_param) << w.name;
  }
  for (const char* name : {"no-reply", "no_reply"}) EXPECT_EQ(find_tag(r, name)->role, TagRole::Sentinel);
  for (const char* name : {"think", "thinking", "reasoning", "thought"}) {
    EXPECT_EQ(find_tag(r, name)->role, TagRole::Hidden);
  }
  EXPECT_EQ(find_tag(r, "actions")->role, TagRole::Wrapper);
  for (const parse::TagName& t : r.tag_names()) {
    for (char c : t.name) EXPECT_FALSE(c >= 'A' && c <= 'Z') << t.name;
    if (t.role == TagRole::Action || t.role == TagRole::Say) {
      EXPECT_GE(t.spelling, 0) << t.name;
    } else {
      EXPECT_EQ(t.spelling, -1) << t.name;
    }
  }
}

TEST(Registry, BuiltinBracketNames) {
  Registry r = Registry::builtin();
  const std::pair<const char*, const char*> wants[] = {
      {"REMEMBER", "remember"},
      {"FORGET_THIS", "forget"},
      {"CORRECT", "correct"},
      {"SEARCH_EPISODIC", "searchArchive"},
      {"REQUEST_TIER", "request-tier"},
      {"CALCULATE", "calculate"},
      {"SEARCH", "search"},
      {"WEB_SEARCH", "search"},
      {"FETCH", "fetch-page"},
      {"COMMAND", "command"},
      {"EXECUTE", "command"},
  };
  EXPECT_EQ(r.bracket_names().size(), std::size(wants));
  for (auto [name, action] : wants) {
    const parse::BracketName* b = find_bracket(r, name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ(r.spelling(b->spelling).action, action) << name;
    EXPECT_TRUE(b->needs_argument) << name;
  }
  EXPECT_EQ(r.spelling_spec(r.bracket_spelling("REQUEST_TIER")).positional,
            (std::vector<std::string>{"level", "content"}));
  EXPECT_EQ(r.spelling_spec(r.bracket_spelling("CORRECT")).positional,
            (std::vector<std::string>{"old", "new"}));
}

TEST(Registry, InterruptsAndSpellingsOf) {
  Registry r = Registry::builtin();
  EXPECT_EQ(r.spellings_of("search").size(), 4u);
  EXPECT_EQ(r.spellings_of("send-file").size(), 2u);
  EXPECT_EQ(r.spellings_of("fetch-page").size(), 2u);
  EXPECT_TRUE(r.spellings_of("nope").empty());
  EXPECT_TRUE(r.spellings_of("Search").empty());  // canonical names are exact
  for (std::size_t i = 0; i < r.spelling_count(); ++i) {
    const parse::SpellingInfo& info = r.spelling(static_cast<int>(i));
    EXPECT_EQ(info.interrupts,
              info.action == "search" || info.action == "fetch-page" || info.action == "viewImage")
        << info.action;
    EXPECT_EQ(info.action, r.action_of(static_cast<int>(i)).name);
  }
  ASSERT_EQ(r.spellings_of("mcp").size(), 1u);
  EXPECT_EQ(r.spellings_of("mcp")[0], r.mcp_spelling());
  EXPECT_EQ(r.spelling_spec(r.mcp_spelling()).dialect, Dialect::Mcp);
  EXPECT_EQ(r.mcp_body_limit(), 256u * 1024);
  EXPECT_THROW(r.spelling(-1), std::out_of_range);
  EXPECT_THROW(r.spelling(static_cast<int>(r.spelling_count())), std::out_of_range);
  EXPECT_THROW(r.validate_tag(9999, {}, {}), std::out_of_range);
}

TEST(Registry, Lookups) {
  Registry r = Registry::builtin();
  EXPECT_EQ(r.tag_spelling("GoogleSearch"), r.tag_spelling("googlesearch"));
  EXPECT_GE(r.tag_spelling("googleSearch"), 0);
  EXPECT_EQ(r.tag_spelling("actions"), -1);  // not a spelling
  EXPECT_EQ(r.tag_spelling("react-x"), -1);
  EXPECT_GE(r.bracket_spelling("SEARCH"), 0);
  EXPECT_EQ(r.bracket_spelling("search"), -1);
  EXPECT_FALSE(r.brackets_case_insensitive());
  EXPECT_TRUE(r.mcp_servers().empty());
}

TEST(Registry, Options) {
  RegistryOptions o;
  o.mcp_servers = {"GitHub", "brave-search"};
  o.brackets_case_insensitive = true;
  o.sentinel_tags = {"No-Reply", "silent"};
  o.hidden_tags = {"Scratchpad"};
  o.wrapper_tag = "Commands";
  Registry r = Registry::builtin(o);
  EXPECT_TRUE(r.brackets_case_insensitive());
  EXPECT_EQ(r.bracket_spelling("search"), r.bracket_spelling("SEARCH"));
  ASSERT_EQ(r.mcp_servers().size(), 2u);
  EXPECT_EQ(r.mcp_servers()[0], "GitHub");  // as configured
  EXPECT_EQ(find_tag(r, "no-reply")->role, TagRole::Sentinel);
  EXPECT_EQ(find_tag(r, "silent")->role, TagRole::Sentinel);
  EXPECT_EQ(find_tag(r, "no_reply"), nullptr);
  EXPECT_EQ(find_tag(r, "scratchpad")->role, TagRole::Hidden);
  EXPECT_EQ(find_tag(r, "think"), nullptr);
  EXPECT_EQ(find_tag(r, "commands")->role, TagRole::Wrapper);
  EXPECT_EQ(find_tag(r, "actions"), nullptr);

  RegistryOptions clash;
  clash.hidden_tags = {"react"};
  EXPECT_THROW(Registry::builtin(clash), std::invalid_argument);
  RegistryOptions twice;
  twice.sentinel_tags = {"no-reply", "NO-REPLY"};
  EXPECT_THROW(Registry::builtin(twice), std::invalid_argument);
  RegistryOptions bad;
  bad.wrapper_tag = "my actions";
  EXPECT_THROW(Registry::builtin(bad), std::invalid_argument);
}

TEST(Registry, SayActionOption) {
  RegistryOptions o;
  o.say_action = "voice";
  Registry r = Registry::builtin(o);
  EXPECT_EQ(find_tag(r, "voice")->role, TagRole::Say);
  EXPECT_EQ(find_tag(r, "say")->role, TagRole::Action);
}

ActionSpec weather() {
  ActionSpec a;
  a.name = "weather";
  a.summary = "the forecast";
  a.params = {make_param("city", ParamType::String, true),
              make_param("days", ParamType::Integer, false, {"d"})};
  a.body_param = "city";
  a.spellings = {make_spelling(Dialect::Tag, "getWeather", BodyKind::Json),
                 make_spelling(Dialect::Tag, "weather", BodyKind::Text, 512),
                 make_spelling(Dialect::Bracket, "WEATHER", BodyKind::None, 0, {"city", "days"})};
  a.result_to = ResultTo::Model;
  a.interrupts = true;
  return a;
}

TEST(Registry, UserActionsWorkLikeBuiltIns) {
  Registry r = Registry::builtin();
  const std::size_t before = r.spelling_count();
  const int search = r.bracket_spelling("SEARCH");
  r.add(weather());
  EXPECT_EQ(r.spelling_count(), before + 3);
  EXPECT_EQ(r.bracket_spelling("SEARCH"), search);  // earlier indexes are stable

  const parse::TagName* json = find_tag(r, "getweather");
  ASSERT_NE(json, nullptr);
  EXPECT_EQ(json->body, BodyKind::Json);
  EXPECT_EQ(json->body_limit, 64u * 1024);
  EXPECT_TRUE(json->has_body_param);
  EXPECT_EQ(find_tag(r, "weather")->body_limit, 512u);
  ASSERT_NE(find_bracket(r, "WEATHER"), nullptr);
  EXPECT_TRUE(find_bracket(r, "WEATHER")->needs_argument);
  EXPECT_EQ(r.spellings_of("weather").size(), 3u);
  EXPECT_TRUE(r.spelling(json->spelling).interrupts);

  const parse::Grammar& g = r;  // the parser sees only the interface
  auto b = g.validate_bracket(r.bracket_spelling("WEATHER"), " Oslo : 3 ", true);
  EXPECT_TRUE(b.valid) << b.error;
  EXPECT_TRUE(same_json(b.args, boost::json::parse(R"({"city": "Oslo", "days": 3})")));
  parse::Body body;
  body.kind = parse::Body::Kind::Json;
  body.json = boost::json::parse(R"({"City": "Bergen", "D": "2"})");
  auto t = g.validate_tag(json->spelling, {}, body);
  EXPECT_TRUE(t.valid) << t.error;
  EXPECT_TRUE(same_json(t.args, boost::json::parse(R"({"city": "Bergen", "days": 2})")));
  body.kind = parse::Body::Kind::Text;
  body.text = "Tromsø";
  auto text = g.validate_tag(json->spelling, {}, body);
  EXPECT_TRUE(same_json(text.args, boost::json::parse(R"({"city": "Tromsø"})")));
  auto missing = g.validate_tag(r.tag_spelling("weather"), {}, {});
  EXPECT_FALSE(missing.valid);
  EXPECT_EQ(missing.error, R"(weather: missing required parameter "city" (write <weather>city</weather>))");
}

TEST(Registry, ConstructedFromAList) {
  Registry r({weather()}, {});
  EXPECT_EQ(r.actions().size(), 1u);
  EXPECT_EQ(r.spelling_count(), 3u);
  EXPECT_EQ(r.mcp_spelling(), -1);
  EXPECT_EQ(r.find_action("react"), nullptr);
  EXPECT_NE(find_tag(r, "actions"), nullptr);
}

TEST(Registry, RejectsBadActionsAndLeavesItselfUnchanged) {
  Registry r = Registry::builtin();
  const std::size_t spellings = r.spelling_count();
  const std::size_t tags = r.tag_names().size();
  auto rejects = [&](ActionSpec a, const char* why) {
    EXPECT_THROW(r.add(std::move(a)), std::invalid_argument) << why;
    EXPECT_EQ(r.spelling_count(), spellings) << why;
    EXPECT_EQ(r.tag_names().size(), tags) << why;
  };
  // One change each that breaks a good spec, and why it must be refused.
  const std::pair<std::function<void(ActionSpec&)>, const char*> broken[] = {
      {[](ActionSpec& a) { a.name = "react"; }, "action name taken"},
      {[](ActionSpec& a) { a.name = ""; }, "no name"},
      {[](ActionSpec& a) { a.spellings.push_back(a.spellings[0]); }, "same tag twice in one action"},
      {[](ActionSpec& a) { a.body_param = "town"; }, "unknown body param"},
      {[](ActionSpec& a) { a.body_param = ""; }, "text body without a body param"},
      {[](ActionSpec& a) { a.params[1].aliases = {"CITY"}; }, "alias clashes with a name"},
      {[](ActionSpec& a) {
         a.spellings[2].positional = {"city", "nope"};
       },
       "unknown positional"},
      {[](ActionSpec& a) {
         a.rules = {{ParamRule::Kind::ExactlyOne, {"city", "nope"}}};
       },
       "unknown rule param"},
      {[](ActionSpec& a) {
         a.spellings[0].presets = {{"nope", boost::json::value("x"), true}};
       },
       "unknown preset"},
      {[](ActionSpec& a) { a.params[1].type = ParamType::Enum; }, "enum without values"},
      {[](ActionSpec& a) {
         a.body_param = "";
         a.spellings = {make_spelling(Dialect::Bracket, "WEATHER")};
       },
       "bracket that cannot tell which parameter ARGS fill"},
      {[](ActionSpec& a) { a.spellings = {make_spelling(Dialect::Mcp, "", BodyKind::Json)}; },
       "second MCP spelling"},
  };
  for (const auto& [change, why] : broken) {
    ActionSpec a = weather();
    change(a);
    rejects(a, why);
  }
  for (const char* taken : {"react", "REACT", "actions", "Think", "no_reply", "googlesearch"}) {
    ActionSpec a = weather();
    a.spellings[1].name = taken;
    rejects(a, taken);
  }
  for (const char* bad : {"", "my tag", "tag>", "tä"}) {
    ActionSpec a = weather();
    a.spellings[1].name = bad;
    rejects(a, bad);
  }
  for (const char* bad : {"weather", "WEATHER-X", "", "SEARCH"}) {
    ActionSpec a = weather();
    a.spellings[2].name = bad;
    rejects(a, bad);
  }
  r.add(weather());  // still usable after all that
  EXPECT_EQ(r.spelling_count(), spellings + 3);
}

TEST(Registry, NoneTagWithOnlyPresetRequirementsNeedsNothingWritten) {
  ActionSpec a;
  a.name = "ping-home";
  a.params = {make_param("chat", ParamType::String, true)};
  Spelling s = make_spelling(Dialect::Tag, "pingHome");
  s.presets = {{"chat", boost::json::value(nullptr), false}};
  a.spellings = {s};
  Registry r({a}, {});
  EXPECT_FALSE(find_tag(r, "pinghome")->has_required_params);
  auto v = r.validate_tag(r.tag_spelling("pinghome"), {}, {});
  EXPECT_TRUE(v.valid) << v.error;
  EXPECT_TRUE(v.args.empty());
}

TEST(Registry, BuiltinActionsMatchTheCatalogue) {
  Registry r = Registry::builtin();
  std::vector<ActionSpec> all = builtin_actions();
  ASSERT_EQ(r.actions().size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(r.actions()[i].name, all[i].name);
}

}  // namespace
}  // namespace sigil::catalog
