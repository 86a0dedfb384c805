// Deferred arguments (events.h, DirectiveEvent::args): what a reader gets from args() is what eager
// validation (Registry::validate_tag, validate_bracket) returns, for random attribute sets and bracket
// arguments of every built-in action, and a copy of an event keeps its arguments after the parser has moved
// on. The conformance vectors check the same through SummarySink, which stores copies.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <random>
#include <string>
#include <vector>

#include "../support/run_parse.h"
#include "sigil/parse/parser.h"

namespace {

namespace parse = sigil::parse;
using sigil::catalog::ParamSpec;
using sigil::catalog::Registry;

// Keeps a copy of each directive, and whether its arguments were still deferred when it arrived.
class KeepingSink final : public parse::EventSink {
 public:
  void on_text(std::string_view, bool) override {}
  void on_directive(const parse::DirectiveEvent& d) override {
    deferred.push_back(d.args_deferred());
    events.push_back(d);
  }
  void on_diagnostic(const parse::Diagnostic&) override {}
  void on_silence(std::uint64_t) override {}
  void on_fallback() override {}
  void on_end(bool) override {}

  std::vector<parse::DirectiveEvent> events;
  std::vector<bool> deferred;
};

// A parser over the conformance registry, with no limit on directives, whose sink keeps every event.
struct KeepingParser {
  static parse::ParserOptions unlimited() {
    parse::ParserOptions o;
    o.max_directives = 1u << 30;
    return o;
  }
  const Registry& registry = sigil::testing::conformance_registry();
  const parse::CompiledGrammar grammar{registry};
  KeepingSink sink;
  parse::Parser parser{grammar, sink, unlimited()};
};

// What eager validation returned for one case, as text.
struct Expected {
  std::string args;
  bool valid = false;
  std::string error;
};

// Compares the kept events with what eager validation returned for each case (markup[i]); returns how many
// arrived with their arguments deferred.
std::size_t compare_kept(const KeepingSink& sink, const std::vector<Expected>& expected,
                         const std::vector<std::string>& markup) {
  std::size_t deferred = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const parse::DirectiveEvent& e = sink.events[i];
    EXPECT_EQ(boost::json::serialize(e.args()), expected[i].args) << markup[i];
    EXPECT_EQ(e.valid, expected[i].valid) << markup[i];
    if (!e.valid) {
      EXPECT_EQ(e.error, expected[i].error) << markup[i];
    }
    if (sink.deferred[i]) {
      ++deferred;
      EXPECT_TRUE(e.valid) << markup[i];  // only valid ones are deferred
    }
  }
  return deferred;
}

// A value for `p` as a model might write it: blank, padded, an enum spelling in another case, or words.
std::string random_value(const ParamSpec& p, std::mt19937& rng) {
  static const char* const kWords[] = {
      "",      "  ", "x",   " padded ",         "thumbsup", "👍",
      "a b c", "3",  "yes", "2026-11-28 10:00", "10m",      "https://example.com/a?b=c"};
  std::uniform_int_distribution<int> pick(0, 3);
  if (!p.enum_values.empty() && pick(rng) != 0) {
    std::string v = p.enum_values[rng() % p.enum_values.size()].written;
    if (!v.empty() && pick(rng) == 0)
      v[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(v[0])));
    return pick(rng) == 0 ? " " + v + " " : v;
  }
  return kWords[rng() % std::size(kWords)];
}

TEST(LazyArgs, TagArgumentsEqualEagerValidation) {
  KeepingParser k;
  const Registry& registry = k.registry;
  KeepingSink& sink = k.sink;
  parse::Parser& parser = k.parser;
  std::mt19937 rng(11);
  std::vector<Expected> expected;
  std::vector<std::string> markup;
  for (int round = 0; round < 40; ++round) {
    for (const parse::TagName& t : registry.tag_names()) {
      if (t.role != parse::TagRole::Action || t.spelling < 0) continue;
      const auto& params = registry.action_of(t.spelling).params;
      std::vector<parse::Attribute> attrs;
      const std::size_t n = params.empty() ? 0 : rng() % (params.size() + 2);
      for (std::size_t i = 0; i < n; ++i) {
        parse::Attribute a;
        if (params.empty() || rng() % 8 == 0) {
          a.key = "unknownkey";
          a.value = "v";
        } else {
          const ParamSpec& p = params[rng() % params.size()];
          a.key = p.aliases.empty() || rng() % 2 == 0 ? p.name : p.aliases.front();
          a.value = random_value(p, rng);
        }
        a.has_value = true;
        attrs.push_back(std::move(a));
      }
      std::string m = "<" + t.name;
      for (const parse::Attribute& a : attrs) m += " " + a.key + "=\"" + a.value + "\"";
      m += "/>";
      const parse::Validated v = registry.validate_tag(t.spelling, attrs, parse::Body{});
      parser.reset();
      parser.feed("Text. " + m + "\n");
      parser.finish();
      if (sink.events.size() != expected.size() + 1) {
        ADD_FAILURE() << m << ": " << sink.events.size() - expected.size() << " directives";
        return;
      }
      expected.push_back({boost::json::serialize(v.args), v.valid, v.error});
      markup.push_back(m);
    }
  }
  // Compared after every case has run: the copies must not point into the parser.
  const std::size_t deferred = compare_kept(sink, expected, markup);
  EXPECT_GE(expected.size(), 400u);
  EXPECT_GE(deferred, expected.size() / 5);  // the common shape does take the deferred path
  EXPECT_LT(deferred, expected.size());      // and the general path is exercised too
}

TEST(LazyArgs, BracketArgumentsEqualEagerValidation) {
  KeepingParser k;
  const Registry& registry = k.registry;
  KeepingSink& sink = k.sink;
  parse::Parser& parser = k.parser;
  static const char* const kArgs[] = {"User likes tea", " padded : two ", "12 * 7",         "",    "  ",
                                      "a:b:c",          "thumbsup",       "10m: remind me", "Oslo"};
  std::vector<Expected> expected;
  std::vector<std::string> markup;
  for (const parse::BracketName& b : registry.bracket_names()) {
    for (const char* args : kArgs) {
      const std::string m = "[" + b.name + ":" + args + "]";
      const parse::Validated v = registry.validate_bracket(b.spelling, args, true);
      parser.reset();
      parser.feed("Text. " + m + " more.\n");
      parser.finish();
      if (sink.events.size() != expected.size() + 1) continue;  // not a directive here (a link, say)
      expected.push_back({boost::json::serialize(v.args), v.valid, v.error});
      markup.push_back(m);
    }
  }
  const std::size_t deferred = compare_kept(sink, expected, markup);
  EXPECT_GE(expected.size(), 30u);
  EXPECT_GE(deferred, 10u);
}

TEST(LazyArgs, CopiesAndMovesBuildTheArguments) {
  parse::DirectiveEvent e;
  const std::string value = "thumbsup";
  const parse::StringArg strings[] = {{"emoji", value}};
  e.defer_string_args(strings);
  EXPECT_TRUE(e.args_deferred());
  const parse::DirectiveEvent copy = e;
  EXPECT_FALSE(copy.args_deferred());
  EXPECT_EQ(boost::json::serialize(copy.args()), R"({"emoji":"thumbsup"})");
  parse::DirectiveEvent moved = std::move(e);
  EXPECT_FALSE(moved.args_deferred());
  EXPECT_EQ(boost::json::serialize(moved.args()), R"({"emoji":"thumbsup"})");
  // Asking again for the same keys assigns in place.
  parse::DirectiveEvent again;
  again.set_args(boost::json::object{{"emoji", "x"}});
  again.defer_string_args(strings);
  EXPECT_EQ(boost::json::serialize(again.args()), R"({"emoji":"thumbsup"})");
  EXPECT_FALSE(again.args_deferred());
}

}  // namespace
