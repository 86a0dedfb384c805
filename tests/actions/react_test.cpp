// The `react` action: the generated emoji table, name and Unicode resolution, the handler, and one real
// reply through Parser + Registry + SqliteStore + Executor.
#include "sigil/actions/react.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/exec/outbox.h"
#include "sigil/parse/parser.h"
#include "support/expect_each.h"
#include "support/handler_context.h"

namespace sigil::actions {
namespace {

using exec::Delivery;
using exec::HandlerResult;
using Op = Delivery::Op;

const exec::TurnIds kIds{"alice", "conv-1", "turn-1"};
const store::TimePoint kT0{std::chrono::seconds(1'700'000'000)};

// Spelled with escapes where invisible code points matter.
const std::string kThumbsUp = "\U0001F44D";
const std::string kHeart = "\u2764\uFE0F";  // fully qualified: ❤ has text presentation by default
const std::string kHeartBare = "\u2764";
const std::string kTada = "\U0001F389";
const std::string kWomanTechnologist = "\U0001F469\u200D\U0001F4BB";
const std::string kFrance = "\U0001F1EB\U0001F1F7";
const std::string kEngland = "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F";

bool has_variation_selector(std::string_view s) {
  return s.find("\uFE0F") != std::string_view::npos || s.find("\uFE0E") != std::string_view::npos;
}

std::string strip_variation_selectors(std::string s) {
  for (std::string_view vs : {std::string_view("\uFE0F"), std::string_view("\uFE0E")})
    for (auto at = s.find(vs); at != std::string::npos; at = s.find(vs)) s.erase(at, vs.size());
  return s;
}

// ---- the generated table ----

TEST(ReactTable, NamesAreSortedUniqueNormalisedAndPointAtKnownEmoji) {
  const auto names = detail::emoji_names();
  ASSERT_GT(names.size(), 3000u);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& e = names[i];
    if (i > 0) {
      EXPECT_LT(names[i - 1].name, e.name) << "at " << i;
    }
    ASSERT_FALSE(e.name.empty());
    for (char c : e.name)
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '+') << e.name;
    EXPECT_EQ(e.name.find("__"), std::string_view::npos) << e.name;
    // Every name's emoji is in the forms table, in its fully-qualified spelling.
    EXPECT_EQ(resolve_emoji(e.emoji), std::optional<std::string>(std::string(e.emoji))) << e.name;
  }
}

TEST(ReactTable, FormsAreSortedUniqueAndBareIsTheEmojiWithoutVariationSelectors) {
  const auto forms = detail::emoji_forms();
  ASSERT_GT(forms.size(), 3000u);
  for (std::size_t i = 0; i < forms.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(forms[i - 1].bare, forms[i].bare) << "at " << i;
    }
    EXPECT_FALSE(has_variation_selector(forms[i].bare));
    EXPECT_EQ(strip_variation_selectors(std::string(forms[i].emoji)), forms[i].bare);
  }
}

// ---- names ----

TEST(ReactResolve, UsualSlackNames) {
  const std::pair<const char*, const char*> cases[] = {
      {"thumbsup", "\U0001F44D"},
      {"+1", "\U0001F44D"},
      {"heart", "\u2764\uFE0F"},
      {"fire", "\U0001F525"},
      {"tada", "\U0001F389"},
      {"eyes", "\U0001F440"},
      {"ok_hand", "\U0001F44C"},
      {"joy", "\U0001F602"},
      {"smile", "\U0001F604"},
      {"laughing", "\U0001F606"},
      {"thinking", "\U0001F914"},
      {"100", "\U0001F4AF"},
      {"white_check_mark", "\u2705"},
      {"x", "\u274C"},
      {"pray", "\U0001F64F"},
      {"clap", "\U0001F44F"},
      {"rocket", "\U0001F680"},
      {"wave", "\U0001F44B"},
      {"-1", "\U0001F44E"},
      {"thumbsdown", "\U0001F44E"},
      {"heavy_check_mark", "\u2714\uFE0F"},
  };
  for (const auto& [name, emoji] : cases)
    EXPECT_EQ(resolve_emoji(name), std::optional<std::string>(emoji)) << name;
}

TEST(ReactResolve, ColonsCaseSeparatorsAndSpacesAreForgiven) {
  for (const char* written : {":thumbsup:", "THUMBSUP", "ThumbsUp", "thumbs_up", "THUMBS-UP", "thumbs up",
                              "  :thumbs-up:  ", ":+1:", ":thumbsup", "thumbsup:", "thumbs__up", "\tlike\n"})
    EXPECT_EQ(resolve_emoji(written), std::optional<std::string>(kThumbsUp)) << written;
  EXPECT_EQ(resolve_emoji(":heart:"), kHeart);
  EXPECT_EQ(resolve_emoji(":tada:"), kTada);
  EXPECT_EQ(resolve_emoji(":t-rex:"), "\U0001F996");
}

TEST(ReactResolve, HandWrittenAliases) {
  EXPECT_EQ(resolve_emoji("like"), kThumbsUp);
  EXPECT_EQ(resolve_emoji("dislike"), "\U0001F44E");
  EXPECT_EQ(resolve_emoji("love"), kHeart);
  test::expect_each(resolve_emoji, {
                                       {"laugh", "\U0001F602"},
                                       {"check", "\u2705"},
                                       {"Done", "\u2705"},
                                       {"thanks", "\U0001F64F"},
                                   });
}

TEST(ReactResolve, SkinTones) {
  test::expect_each(resolve_emoji,
                    {
                        {"thumbsup_tone1", "\U0001F44D\U0001F3FB"},
                        {":+1_tone5:", "\U0001F44D\U0001F3FF"},
                        // Slack: skin-tone-2..6 are the five modifiers; skin-tone-1 is the default.
                        {":thumbsup::skin-tone-2:", "\U0001F44D\U0001F3FB"},
                        {":wave::skin-tone-6:", "\U0001F44B\U0001F3FF"},
                    });
  EXPECT_EQ(resolve_emoji(":thumbsup::skin-tone-1:"), kThumbsUp);
  // An emoji without skin tones ignores the tone.
  EXPECT_EQ(resolve_emoji(":fire::skin-tone-3:"), "\U0001F525");
  EXPECT_EQ(resolve_emoji(":thumbsup::skin-tone-7:"), std::nullopt);
  EXPECT_EQ(resolve_emoji(":thumbsup::wave:"), std::nullopt);
  EXPECT_EQ(resolve_emoji("::skin-tone-2:"), std::nullopt);
}

// ---- Unicode ----

TEST(ReactResolve, KnownUnicodePassesThroughFullyQualified) {
  EXPECT_EQ(resolve_emoji(kThumbsUp), kThumbsUp);
  EXPECT_EQ(resolve_emoji(kThumbsUp + "\uFE0F"), kThumbsUp);  // emoji presentation by default: no FE0F
  EXPECT_EQ(resolve_emoji(kHeart), kHeart);
  EXPECT_EQ(resolve_emoji(kHeartBare), kHeart);
  EXPECT_EQ(resolve_emoji(kHeartBare + "\uFE0E"), kHeart);  // a text-style request is still that emoji
  EXPECT_EQ(resolve_emoji(" " + kHeart + " "), kHeart);
  EXPECT_EQ(resolve_emoji(":" + kTada + ":"), kTada);
  EXPECT_EQ(resolve_emoji(kWomanTechnologist), kWomanTechnologist);
  EXPECT_EQ(resolve_emoji(kFrance), kFrance);
  EXPECT_EQ(resolve_emoji(kEngland), kEngland);
  test::expect_each(resolve_emoji,
                    {
                        {"\U0001F44D\U0001F3FD", "\U0001F44D\U0001F3FD"},  // with a skin tone
                        {"1\u20E3", "1\uFE0F\u20E3"},                      // keycap
                        {"\U0001F3F3\u200D\U0001F308", "\U0001F3F3\uFE0F\u200D\U0001F308"},  // rainbow flag
                    });
}

TEST(ReactResolve, UnknownButEmojiLikeUnicodePassesThroughAsWritten) {
  // A symbol that is not an emoji in the data, a ZWJ sequence that is not RGI, and an unassigned code point
  // in the emoji plane (what an emoji newer than the data looks like).
  EXPECT_EQ(resolve_emoji("\u2654"), "\u2654");
  const std::string unicorn_rainbow = "\U0001F984\u200D\U0001F308";
  EXPECT_EQ(resolve_emoji(unicorn_rainbow), unicorn_rainbow);
  EXPECT_EQ(resolve_emoji("\U0001FFFD"), "\U0001FFFD");
}

// ---- refusals ----

TEST(ReactResolve, Refusals) {
  const std::string refused[] = {
      "",
      "   \t",
      ":",
      "::",
      "thumbs upp",
      "hello",
      "yes please",
      "<script>",
      "<script>alert(1)</script>",
      "\x01",
      "thumbsup!",
      std::string(200, 'a'),
      "abc" + kThumbsUp,      // mixed with letters
      kThumbsUp + kThumbsUp,  // two emoji
      "\u00E9",               // a letter
      "\uFF11",               // a full-width digit
      "\u00A0",               // a no-break space
      "\u200D",               // a lone ZWJ
      "\u20E3",               // a lone combining mark
      "\xF0\x9F",             // invalid UTF-8
      "\U000F0000",           // private use
      "\u2192",               // an arrow is a math symbol (Sm), not an emoji
      // One unknown cluster, but longer than 32 bytes: six unicorns joined by ZWJ.
      "\U0001F984\u200D\U0001F984\u200D\U0001F984\u200D\U0001F984\u200D\U0001F984\u200D\U0001F984",
  };
  for (const std::string& s : refused) EXPECT_EQ(resolve_emoji(s), std::nullopt) << '"' << s << '"';
}

// ---- the handler ----

class ReactHandlerTest : public ::testing::Test {
 protected:
  HandlerResult run(const boost::json::object& args, ReactConfig config = {}) {
    exec::HandlerTable table;
    add_react_handlers(table, std::move(config));
    auto handler = table.find("react");
    EXPECT_NE(handler, nullptr);
    exec::Directive d;
    d.action = "react";
    d.args = args;
    std::stop_source stop;
    const std::function<store::TimePoint()> now = [] { return kT0; };
    const std::any services;
    exec::ActionContext ctx(kIds, *store_, stop.get_token(), now, services);
    return handler->run(d, ctx);
  }

  std::unique_ptr<store::Store> store_ = test::memory_store();
};

TEST_F(ReactHandlerTest, ReactsWithTheResolvedEmojiToTheMessageBeingAnswered) {
  HandlerResult r = run({{"emoji", ":ThumbsUp:"}});
  EXPECT_EQ(r.status, HandlerResult::Status::Ok);
  EXPECT_EQ(r.message, "reacted " + kThumbsUp);
  EXPECT_EQ(r.result, (boost::json::value{{"emoji", kThumbsUp}}));
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].op, Op::Reaction);
  EXPECT_EQ(r.deliveries[0].emoji, kThumbsUp);
  EXPECT_EQ(r.deliveries[0].message, "");
}

// A user message the channel stored with its platform id (what the model reads as "[message <id>]").
void store_platform_message(store::Store& s, const store::Scope& scope, const std::string& id) {
  ASSERT_TRUE(s.append_message(scope, store::Message{0, "user", "hi", "turn-0", kT0, {}, id}).ok());
}

TEST_F(ReactHandlerTest, ReactsToTheGivenMessage) {
  store_platform_message(*store_, {kIds.user, kIds.conversation}, "4711");
  HandlerResult r = run({{"emoji", kHeartBare}, {"message", "4711"}});
  EXPECT_EQ(r.status, HandlerResult::Status::Ok);
  EXPECT_EQ(r.message, "reacted " + kHeart + " to message \"4711\"");
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].emoji, kHeart);
  EXPECT_EQ(r.deliveries[0].message, "4711");
}

TEST_F(ReactHandlerTest, AMessageIdTheConversationDoesNotHoldIsAnError) {
  store_platform_message(*store_, {kIds.user, kIds.conversation}, "4711");
  store_platform_message(*store_, {kIds.user, "another-conversation"}, "4712");  // not this one's
  for (const char* id : {"4712", "4710", "m1"}) {
    HandlerResult r = run({{"emoji", kHeartBare}, {"message", id}});
    EXPECT_EQ(r.status, HandlerResult::Status::Error) << id;
    EXPECT_EQ(r.message, "react: no message \"" + std::string(id) +
                             "\" in this conversation; use an id shown as [message <id>] before a message, "
                             "or leave message out to react to the one being answered");
    EXPECT_TRUE(r.deliveries.empty()) << id;
  }
}

TEST_F(ReactHandlerTest, UnknownEmojiIsAnErrorThatSaysWhatToWrite) {
  HandlerResult r = run({{"emoji", "thumbs upp"}});
  EXPECT_EQ(r.status, HandlerResult::Status::Error);
  EXPECT_EQ(
      r.message,
      "react: unknown emoji \"thumbs upp\"; write a Unicode emoji or a name like thumbsup, heart, tada");
  EXPECT_TRUE(r.deliveries.empty());
}

TEST_F(ReactHandlerTest, ErrorMessagesAreOneLine) {
  HandlerResult r = run({{"emoji", "bad\nname\r<script>"}});
  EXPECT_EQ(r.status, HandlerResult::Status::Error);
  EXPECT_EQ(r.message.find_first_of("\r\n"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("bad\\nname"), std::string::npos) << r.message;

  r = run({{"emoji", std::string(300, 'x')}});
  EXPECT_EQ(r.status, HandlerResult::Status::Error);
  EXPECT_EQ(r.message,
            "react: the emoji is too long (300 bytes); write one emoji or a name like thumbsup, heart, tada");

  r = run({{"emoji", kThumbsUp + kTada}});
  EXPECT_EQ(r.status, HandlerResult::Status::Error);
  EXPECT_EQ(r.message,
            "react: \"" + kThumbsUp + kTada + "\" is more than one emoji; a reaction is a single emoji");

  r = run({{"emoji", "   "}});
  EXPECT_EQ(r.status, HandlerResult::Status::Error);
  EXPECT_EQ(r.message,
            "react: the emoji is empty; write a Unicode emoji or a name like thumbsup, heart, tada");

  r = run({});
  EXPECT_EQ(r.status, HandlerResult::Status::Error);
}

TEST_F(ReactHandlerTest, AllowListAcceptsAnySpellingAndNamesTheChoicesOnRefusal) {
  ReactConfig config;
  config.allowed = {":heart:", kThumbsUp, "tada"};
  HandlerResult r = run({{"emoji", kHeartBare}}, config);
  EXPECT_EQ(r.status, HandlerResult::Status::Ok) << r.message;
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].emoji, kHeart);

  r = run({{"emoji", "+1"}}, config);
  EXPECT_EQ(r.status, HandlerResult::Status::Ok) << r.message;

  r = run({{"emoji", "fire"}}, config);
  EXPECT_EQ(r.status, HandlerResult::Status::Error);
  EXPECT_EQ(r.message,
            "react: \U0001F525 is not available here; use one of " + kHeart + " " + kThumbsUp + " " + kTada);
  EXPECT_TRUE(r.deliveries.empty());
}

TEST(ReactConfigTest, AnAllowedEntryThatIsNoEmojiIsRefusedAtSetUp) {
  exec::HandlerTable table;
  ReactConfig config;
  config.allowed = {"heart", "hart"};
  EXPECT_THROW(add_react_handlers(table, config), std::invalid_argument);
}

// ---- end to end ----

// One reply through the real parser and an executor with the react handlers at kT0; the executor stays, to be
// asked about the turn afterwards.
struct ReactTurn {
  std::unique_ptr<store::Store> store = test::memory_store();
  exec::HandlerTable handlers;
  exec::RecordingOutbox outbox;
  const catalog::Registry registry = catalog::Registry::builtin();
  std::unique_ptr<exec::Executor> executor;
  exec::TurnReport report;

  ReactTurn(std::string_view reply, bool inline_resolver) {
    add_react_handlers(handlers);
    exec::ExecOptions options;
    options.now = [] { return kT0; };
    executor = std::make_unique<exec::Executor>(registry, handlers, *store, outbox, kIds, std::move(options));
    parse::ParserOptions po;
    if (inline_resolver) po.inline_resolver = executor->inline_resolver();
    parse::Parser parser(registry, executor->sink(), po);
    parser.feed(reply);
    parser.finish();
    report = executor->finish();
  }
};

TEST(ReactEndToEnd, ReactionGoesOutBeforeTheTextAfterIt) {
  ReactTurn turn("<react emoji=\"thumbsup\"/>Great!", true);

  ASSERT_EQ(turn.outbox.ops().size(), 2u);
  EXPECT_EQ(turn.outbox.ops()[0].op, Op::Reaction);
  EXPECT_EQ(turn.outbox.ops()[0].emoji, kThumbsUp);
  EXPECT_EQ(turn.outbox.ops()[0].message, "");
  EXPECT_EQ(turn.outbox.ops()[1].op, Op::Text);
  EXPECT_EQ(turn.outbox.ops()[1].text, "Great!");
  EXPECT_TRUE(turn.outbox.ended());
  ASSERT_EQ(turn.report.results.size(), 1u);
  EXPECT_EQ(turn.report.results[0].action, "react");
  EXPECT_EQ(turn.report.results[0].status, exec::ResultStatus::Ok);
  EXPECT_EQ(turn.report.results[0].message, "reacted " + kThumbsUp);
  // react is model_on_error: a success does not call the model again.
  EXPECT_FALSE(turn.executor->needs_model_call());
}

TEST(ReactEndToEnd, UnknownEmojiGoesBackToTheModelAndTheTextStillGoesOut) {
  ReactTurn turn("Great! <react emoji=\"thumbs upp\"/>", false);

  ASSERT_EQ(turn.outbox.ops().size(), 1u);
  EXPECT_EQ(turn.outbox.ops()[0].op, Op::Text);
  EXPECT_EQ(turn.outbox.ops()[0].text, "Great!");
  ASSERT_EQ(turn.report.results.size(), 1u);
  EXPECT_EQ(turn.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_TRUE(turn.executor->needs_model_call());
  // The executor drops the message's repeated "react: ".
  EXPECT_EQ(
      turn.executor->model_message(),
      "[1] react: error: unknown emoji \"thumbs upp\"; write a Unicode emoji or a name like thumbsup, heart, "
      "tada\n");
}

}  // namespace
}  // namespace sigil::actions
