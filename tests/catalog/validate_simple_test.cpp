// validate_tag_simple and validate_bracket_simple (the registry's in-place paths for common directives)
// return exactly what validate_tag and validate_bracket return, into a Validated that held another result
// before; and they leave everything else (bodies, unknown or repeated keys, blank values, unknown enum
// values, rules, missing arguments) to the general paths.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "sigil/catalog/action_spec.h"
#include "sigil/catalog/registry.h"
#include "sigil/catalog/spec_builders.h"
#include "sigil/catalog/validate.h"
#include "sigil/parse/grammar.h"

namespace {

namespace parse = sigil::parse;
using sigil::catalog::Registry;

int spelling_of(const Registry& r, std::string_view tag) {
  for (const parse::TagName& t : r.tag_names())
    if (t.name == tag) return t.spelling;  // names are lower case
  ADD_FAILURE() << "no tag " << tag;
  return -1;
}

// A Validated as text, its deferred arguments built (the JSON a reader would get).
std::string printed(parse::Validated v) {
  v.build_args();
  std::string out =
      boost::json::serialize(v.args) + " valid=" + std::to_string(v.valid) + " error=" + v.error;
  for (const parse::Note& n : v.notes) out += " note=" + n.code + ":" + n.message;
  return out;
}

struct Case {
  const char* tag;
  std::vector<parse::Attribute> attrs;
};

TEST(ValidateSimple, SameResultAsValidateTagFromAnyPreviousState) {
  const Registry registry = Registry::builtin();
  const std::vector<Case> cases = {
      {"react", {{"emoji", "thumbsup", true}}},
      {"react", {{"emoji", "👍", true}}},
      {"react", {{"emoji", "  spaced  ", true}}},
      {"react", {{"EMOJI", "x", true}}},
      {"react", {{"emoji", "", true}}},
      {"react", {{"emoji", "   ", true}}},
      {"react", {{"emoji", "", false}}},
      {"react", {{"emoji", "a", true}, {"emoji", "b", true}}},
      {"react", {{"emoji", "a", true}, {"bogus", "b", true}}},
      {"react", {}},
      {"react", {{"message", "m1", true}}},
      {"react", {{"emoji", "x", true}, {"message", "m1", true}}},
      {"react",
       {{"message", "m1", true}, {"emoji", "a rather long emoji name, past any short-string buffer", true}}},
      {"send-file", {{"path", "a.png", true}}},
      {"send-file", {{"file", "a.png", true}, {"kind", "IMAGE", true}}},
      {"send-file", {{"path", "a.png", true}, {"mode", " document ", true}}},
      {"send-file", {{"path", "a.png", true}, {"kind", "hologram", true}}},
      {"send-file", {{"path", "a.png", true}, {"cleanup", "", false}}},
      {"send-file", {{"path", "a.png", true}, {"channel", "web", true}}},
      {"cleanupmemory", {}},
      {"react", {{"emoji", "thumbsup", true}}},
  };
  parse::Validated reused;
  int simple = 0;
  for (int round = 0; round < 2; ++round) {
    for (const Case& c : cases) {
      const int s = spelling_of(registry, c.tag);
      const parse::Validated expected = registry.validate_tag(s, c.attrs, parse::Body{});
      registry.validate_tag_into(s, c.attrs, parse::Body{}, reused);
      EXPECT_EQ(printed(reused), printed(expected)) << c.tag;
      // The same attributes as views (as the parser's whole-tag path passes them).
      std::vector<parse::AttributeRef> refs;
      for (const parse::Attribute& a : c.attrs) refs.push_back({a.key, a.value, a.has_value});
      parse::Validated from_refs = expected;
      registry.validate_tag_refs_into(s, refs, from_refs);
      EXPECT_EQ(printed(from_refs), printed(expected)) << c.tag;
      parse::Validated scratch = expected;  // a non-empty previous state
      if (sigil::catalog::validate_tag_simple(registry.action_of(s), registry.spelling_spec(s), refs,
                                              parse::Body{}, scratch)) {
        ++simple;
        EXPECT_TRUE(scratch.args_deferred) << c.tag;  // no JSON built on the simple path
        EXPECT_EQ(printed(scratch), printed(expected)) << c.tag;
        EXPECT_TRUE(expected.valid);
      }
    }
  }
  EXPECT_GE(simple, 16);  // the common cases do take the simple path
}

TEST(ValidateSimple, LeavesBodiesToValidateTag) {
  const Registry registry = Registry::builtin();
  const int s = spelling_of(registry, "voice");
  parse::Body body;
  body.kind = parse::Body::Kind::Text;
  body.text = "hello";
  parse::Validated out;
  EXPECT_FALSE(
      sigil::catalog::validate_tag_simple(registry.action_of(s), registry.spelling_spec(s), {}, body, out));
  registry.validate_tag_into(s, {}, body, out);
  EXPECT_EQ(printed(out), printed(registry.validate_tag(s, {}, body)));
}

}  // namespace

namespace {

int bracket_of(const Registry& r, std::string_view name) {
  for (const parse::BracketName& b : r.bracket_names())
    if (b.name == name) return b.spelling;
  ADD_FAILURE() << "no bracket " << name;
  return -1;
}

TEST(ValidateSimple, BracketsSameResultAsValidateBracketFromAnyPreviousState) {
  const Registry registry = Registry::builtin();
  struct BracketCase {
    const char* name;
    const char* args;
    bool has_args;
  };
  const std::vector<BracketCase> cases = {
      {"REMEMBER", "User is planning a three-day trip to Lisbon in May", true},
      {"REMEMBER", "  likes tea  ", true},
      {"REMEMBER", "a: b: c", true},
      {"REMEMBER", "   ", true},
      {"REMEMBER", "", false},
      {"CORRECT", "old fact: new fact", true},
      {"CORRECT", "only the old one", true},
      {"CORRECT", " : new", true},
      {"REQUEST_TIER", "high: needs more thought", true},
      {"REQUEST_TIER", "HIGH:x", true},
      {"REQUEST_TIER", "bogus: x", true},
      {"CALCULATE", "2 + 2", true},
      {"SEARCH", "lisbon trams", true},
      {"FETCH", "https://example.com/a", true},
      {"COMMAND", "status", true},
      {"REMEMBER", "User is planning a three-day trip to Lisbon in May", true},
  };
  parse::Validated reused;
  int simple = 0;
  for (int round = 0; round < 2; ++round) {
    for (const BracketCase& c : cases) {
      const int s = bracket_of(registry, c.name);
      const parse::Validated expected = registry.validate_bracket(s, c.args, c.has_args);
      registry.validate_bracket_into(s, c.args, c.has_args, reused);
      EXPECT_EQ(printed(reused), printed(expected)) << c.name << " " << c.args;
      parse::Validated scratch = expected;
      if (sigil::catalog::validate_bracket_simple(registry.action_of(s), registry.spelling_spec(s), c.args,
                                                  c.has_args, scratch)) {
        ++simple;
        EXPECT_EQ(printed(scratch), printed(expected)) << c.name << " " << c.args;
        EXPECT_TRUE(expected.valid);
      }
    }
  }
  EXPECT_GE(simple, 12);  // REMEMBER, CORRECT with both parts, CALCULATE, ... (REQUEST_TIER: an integer)
}

// The flat path finds a key's parameter as the general path does (one lookup, find_param): the name or an
// alias, ASCII case folded, whole keys only; the first byte that differs may come after a run that matched
// as written.
TEST(FindParam, MatchesNamesAndAliasesCaseFoldedAndWholeOnly) {
  using sigil::catalog::ParamType;
  sigil::catalog::ActionSpec a;
  a.name = "send-file";
  a.params = {sigil::catalog::make_param("path", ParamType::String, true, {"file"}),
              sigil::catalog::make_param("mode", ParamType::String, false)};
  const auto index = [&](std::string_view key) {
    const sigil::catalog::ParamSpec* p = sigil::catalog::find_param(a, key);
    return p == nullptr ? -1 : static_cast<int>(p - a.params.data());
  };
  EXPECT_EQ(index("path"), 0);
  EXPECT_EQ(index("PATH"), 0);
  EXPECT_EQ(index("paTh"), 0);
  EXPECT_EQ(index("file"), 0);
  EXPECT_EQ(index("FiLe"), 0);
  EXPECT_EQ(index("mode"), 1);
  EXPECT_EQ(index("modE"), 1);
  EXPECT_EQ(index("modx"), -1);   // matches as written up to its last byte
  EXPECT_EQ(index("pat"), -1);    // a prefix
  EXPECT_EQ(index("paths"), -1);  // longer
  EXPECT_EQ(index("p@th"), -1);   // '@' is no letter: it folds to nothing
  EXPECT_EQ(index(""), -1);
}

}  // namespace
