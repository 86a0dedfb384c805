// Grammar::one_value_tag and validate_one_value_into (the repeated-tag path's validation: the parameter a
// kept prefix's key names, resolved once) give validate_tag_refs_into's result for the same one attribute,
// into a Validated that held another result before: for every tag spelling of the built-in catalog and of
// a small one with enum parameters, rules and several required parameters, under each parameter's name,
// alias, in other cases and unknown keys, with values that pass and that fail in each way (blank, missing,
// an enum value not in the list, with and without a fallback).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "sigil/catalog/action_spec.h"
#include "sigil/catalog/registry.h"
#include "sigil/catalog/spec_builders.h"
#include "sigil/parse/grammar.h"
#include "sigil/text/ascii.h"

namespace {

namespace parse = sigil::parse;
namespace catalog = sigil::catalog;
using catalog::ParamType;
using catalog::Registry;

// A Validated as text, its deferred arguments built (the JSON a reader would get).
std::string printed(parse::Validated v) {
  v.build_args();
  std::string out =
      boost::json::serialize(v.args) + " valid=" + std::to_string(v.valid) + " error=" + v.error;
  for (const parse::Note& n : v.notes) out += " note=" + n.code + ":" + n.message;
  return out;
}

// What a Validated held before: a valid result with two deferred arguments, or an invalid one with a note.
void fill_other(const Registry& r, int spelling, parse::Validated& v, bool valid) {
  const parse::AttributeRef two[2] = {{"zz", "1", true}, {"zz", "2", true}};
  r.validate_tag_refs_into(spelling, std::span<const parse::AttributeRef>(two, valid ? 0 : 2), v);
  if (valid) {
    v.valid = true;
    v.error.clear();
    v.notes.clear();
  }
}

std::vector<std::string> keys_of(const catalog::ActionSpec& action) {
  std::vector<std::string> keys = {"bogus", "x"};
  for (const catalog::ParamSpec& p : action.params) {
    keys.push_back(p.name);
    keys.push_back(sigil::text::ascii::to_upper(p.name));
    for (const std::string& a : p.aliases) keys.push_back(a);
  }
  return keys;
}

std::vector<std::string> values_of(const catalog::ActionSpec& action) {
  std::vector<std::string> values = {"",
                                     " ",
                                     "\t",
                                     "x",
                                     "  spaced  ",
                                     "👍",
                                     "1",
                                     "a b",
                                     "5m",
                                     "not-a-kind",
                                     "a rather long value past any short buffer"};
  for (const catalog::ParamSpec& p : action.params) {
    for (const catalog::EnumValue& e : p.enum_values) {
      values.push_back(e.written);
      values.push_back(" " + sigil::text::ascii::to_upper(e.written) + " ");
    }
  }
  return values;
}

// Compares the two paths over every tag spelling of `r`; returns how many keys were resolved.
int compare_all(const Registry& r) {
  int resolved = 0;
  for (const parse::TagName& t : r.tag_names()) {
    if (t.spelling < 0 || t.role != parse::TagRole::Action) continue;
    const catalog::ActionSpec& action = r.action_of(t.spelling);
    for (const std::string& key : keys_of(action)) {
      const parse::OneValueTag one = r.one_value_tag(t.spelling, key);
      EXPECT_EQ(one.spelling, t.spelling);
      resolved += one.resolved != nullptr ? 1 : 0;
      // The key as a view into other bytes than those it was resolved with (the repeat's own).
      const std::string again = key;
      for (const std::string& value : values_of(action)) {
        for (const bool valid_before : {true, false}) {
          parse::Validated general, repeated;
          fill_other(r, t.spelling, general, valid_before);
          fill_other(r, t.spelling, repeated, valid_before);
          const parse::AttributeRef a{again, value, true};
          r.validate_tag_refs_into(t.spelling, std::span<const parse::AttributeRef>(&a, 1), general);
          r.validate_one_value_into(one, again, value, repeated);
          EXPECT_EQ(printed(repeated), printed(general))
              << t.name << " " << key << "=\"" << value << "\" (before: " << valid_before << ")";
        }
      }
    }
  }
  return resolved;
}

TEST(OneValueTag, TheBuiltinCatalogsTagsValidateAsInFull) {
  const Registry r = Registry::builtin();
  // Resolved for (at least) react's emoji and its upper-case spelling, so the resolved path is compared.
  EXPECT_GT(compare_all(r), 2);
  const int react = [&] {
    for (const parse::TagName& t : r.tag_names())
      if (t.name == "react") return t.spelling;
    return -1;
  }();
  ASSERT_GE(react, 0);
  EXPECT_NE(r.one_value_tag(react, "emoji").resolved, nullptr);
  EXPECT_NE(r.one_value_tag(react, "Emoji").resolved, nullptr);
  EXPECT_EQ(r.one_value_tag(react, "emojis").resolved, nullptr);  // unknown: validated in full
}

TEST(OneValueTag, EnumsRulesAndRequiredParametersValidateAsInFull) {
  using catalog::Dialect;
  auto action = [](std::string name, std::vector<catalog::ParamSpec> params) {
    catalog::ActionSpec a;
    a.name = name;
    a.params = std::move(params);
    a.spellings = {catalog::make_spelling(Dialect::Tag, name)};
    return a;
  };
  auto kind = [](bool required, bool fallback) {
    catalog::ParamSpec p = catalog::make_param("kind", ParamType::Enum, required, {"mode"});
    p.enum_values = {{"image", "image"}, {"doc", "document"}, {"auto", "auto"}};
    if (fallback) p.enum_fallback = "auto";
    return p;
  };
  std::vector<catalog::ActionSpec> actions;
  actions.push_back(action("pick", {kind(true, false)}));
  actions.push_back(action("pickany", {kind(false, true)}));
  actions.push_back(action("both", {kind(true, true), catalog::make_param("path", ParamType::String, true)}));
  actions.push_back(action("count", {catalog::make_param("n", ParamType::Integer, true)}));
  catalog::ActionSpec ruled = action("ruled", {catalog::make_param("a"), catalog::make_param("b")});
  ruled.rules = {{catalog::ParamRule::Kind::ExactlyOne, {"a", "b"}}};
  actions.push_back(ruled);
  catalog::ActionSpec preset = action("preset", {catalog::make_param("to", ParamType::String, true)});
  preset.spellings[0].presets = {{"to", boost::json::value("me"), true}};
  actions.push_back(preset);
  const Registry r(std::move(actions));
  // pick's kind, KIND and mode, pickany's; not both's (path is required too), count's
  // (an integer), ruled's or preset's (they take the general path).
  EXPECT_EQ(compare_all(r), 6);
}

}  // namespace
