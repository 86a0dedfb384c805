// The memory handlers (remember, forget, correct, setMemory, deleteItem, cleanupMemory) over a real SQLite
// store: results, limits, expiry, isolation, store failures, and one reply through the executor.
#include "sigil/actions/memory.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>

#include "memory_test_support.h"

namespace sigil::actions {
namespace {

using namespace std::chrono_literals;
using namespace testing;

class Memory : public ::testing::Test {
 protected:
  explicit Memory(MemoryConfig config = {}) { add_memory_handlers(h.handlers, config); }

  std::vector<std::string> facts(const exec::TurnIds& who = kAlice,
                                 store::MemoryScope policy = store::MemoryScope::per_user) {
    auto listed = h.store->list_facts(memory_scope(who, policy));
    EXPECT_TRUE(listed.ok()) << listed.error();
    std::vector<std::string> out;
    if (listed)
      for (const store::Fact& f : *listed) out.push_back(f.text);
    return out;
  }

  std::optional<std::string> item(std::string_view id, const exec::TurnIds& who = kAlice) {
    auto got = h.store->get_item(memory_scope(who, store::MemoryScope::per_user), id, h.now);
    EXPECT_TRUE(got.ok()) << got.error();
    if (!got || !got->has_value()) return std::nullopt;
    return (*got)->value_json;
  }

  Harness h;
};

class SmallMemory : public Memory {
 protected:
  static MemoryConfig small() {
    MemoryConfig c;
    c.max_facts = 2;
    c.max_items = 2;
    c.max_value_bytes = 32;
    c.max_item_id_bytes = 16;
    return c;
  }
  SmallMemory() : Memory(small()) {}
};

using Strings = std::vector<std::string>;

// ------------------------------------------------------------------------------------------ remember

TEST_F(Memory, RememberStoresTrimmedFactOnce) {
  HandlerResult r = h.run("remember", R"({"fact":"  likes tea "})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, "remembered: likes tea");
  EXPECT_EQ(r.result.at("added"), true);
  r = h.run("remember", R"({"fact":"likes tea"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, "already remembered: likes tea");
  EXPECT_EQ(facts(), Strings{"likes tea"});
}

TEST_F(Memory, RememberRefusesMissingEmptyMultiLineAndOverLongFacts) {
  for (const char* args : {R"({})", R"({"fact":"   "})", R"({"fact":5})"}) {
    HandlerResult r = h.run("remember", args);
    EXPECT_FALSE(is_ok(r)) << args;
    EXPECT_EQ(r.message.rfind("remember: ", 0), 0u) << r.message;
  }
  HandlerResult r = h.run("remember", R"({"fact":"line one\nline two"})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message, "remember: a fact is one line: write it without line breaks");
  r = h.run("remember", R"({"fact":")" + std::string(4097, 'x') + R"("})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message, "remember: the fact is 4097 bytes; a fact may have at most 4096: shorten it");
  EXPECT_TRUE(is_ok(h.run("remember", R"({"fact":")" + std::string(4096, 'x') + R"("})")));
  EXPECT_EQ(facts().size(), 1u);
}

TEST_F(SmallMemory, RememberRefusesANewFactWhenFullButNotAKnownOne) {
  EXPECT_TRUE(is_ok(h.run("remember", R"({"fact":"a"})")));
  EXPECT_TRUE(is_ok(h.run("remember", R"({"fact":"b"})")));
  HandlerResult r = h.run("remember", R"({"fact":"c"})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message, "remember: memory is full (2 facts): forget or correct facts first");
  EXPECT_TRUE(is_ok(h.run("remember", R"({"fact":"a"})")));
  EXPECT_EQ(facts(), (Strings{"a", "b"}));
}

// ------------------------------------------------------------------------------------------ forget

TEST_F(Memory, ForgetExactFactLeavesOthers) {
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"likes tea"})")));
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"likes tea at five"})")));
  HandlerResult r = h.run("forget", R"({"fact":"likes tea"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(forgot 1 fact matching "likes tea": "likes tea")");
  EXPECT_EQ(facts(), Strings{"likes tea at five"});
}

TEST_F(Memory, ForgetBySubstringNamesEveryFactRemoved) {
  for (const char* f : {"Likes TEA", "tea at five", "has a cat"})
    ASSERT_TRUE(is_ok(h.run("remember", std::string(R"({"fact":")") + f + "\"}")));
  HandlerResult r = h.run("forget", R"({"fact":"tea"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(forgot 2 facts matching "tea": "Likes TEA" | "tea at five")");
  EXPECT_EQ(r.result.at("removed"), 2);
  EXPECT_EQ(facts(), Strings{"has a cat"});
}

TEST_F(Memory, ForgettingNothingIsAnErrorTheModelHears) {
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"likes tea"})")));
  HandlerResult r = h.run("forget", R"({"fact":"coffee"})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message, R"(forget: no stored fact matches "coffee")");
  r = h.run("forget", R"({"fact":" "})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message, R"(forget: "fact" is missing: write the fact to remove)");
  EXPECT_EQ(facts(), Strings{"likes tea"});
}

// ------------------------------------------------------------------------------------------ correct

TEST_F(Memory, CorrectReplacesTheMatchingFact) {
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"lives in Paris"})")));
  HandlerResult r = h.run("correct", R"({"old":"paris","new":"lives in Berlin"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, "corrected: \"lives in Paris\" \u2192 \"lives in Berlin\"");
  EXPECT_EQ(r.result.at("old"), "lives in Paris");
  EXPECT_EQ(facts(), Strings{"lives in Berlin"});
}

TEST_F(Memory, CorrectWithNoMatchRemembersTheNewFact) {
  HandlerResult r = h.run("correct", R"({"old":"lives in Paris","new":"lives in Berlin"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(no stored fact matched "lives in Paris"; remembered: lives in Berlin)");
  EXPECT_EQ(r.result.at("corrected"), false);
  EXPECT_EQ(facts(), Strings{"lives in Berlin"});
  r = h.run("correct", R"({"old":"lives in Rome","new":"lives in Berlin"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(no stored fact matched "lives in Rome"; already remembered: lives in Berlin)");
}

TEST_F(Memory, AmbiguousCorrectionListsTheCandidatesAndChangesNothing) {
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"likes tea"})")));
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"green tea at five"})")));
  HandlerResult r = h.run("correct", R"({"old":"tea","new":"likes coffee"})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(
      r.message,
      R"(correct: 2 facts contain "tea"; quote one of them exactly: "likes tea" | "green tea at five")");
  EXPECT_EQ(facts(), (Strings{"likes tea", "green tea at five"}));
}

TEST_F(Memory, CorrectRefusesBadArguments) {
  HandlerResult r = h.run("correct", R"({"new":"x"})");
  EXPECT_EQ(r.message, R"(correct: "old" is missing: write the stored fact to replace)");
  r = h.run("correct", R"({"old":"x"})");
  EXPECT_EQ(r.message, R"(correct: "new" is missing: write what the fact becomes)");
  r = h.run("correct", R"({"old":"x","new":"a\nb"})");
  EXPECT_EQ(r.message, "correct: a fact is one line: write it without line breaks");
  r = h.run("correct", R"({"old":"x","new":")" + std::string(5000, 'y') + R"("})");
  EXPECT_EQ(r.message, "correct: the new fact is 5000 bytes; a fact may have at most 4096: shorten it");
  EXPECT_FALSE(is_ok(r));
  EXPECT_TRUE(facts().empty());
}

TEST_F(SmallMemory, CorrectWithNoMatchOnAFullMemoryIsAnError) {
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"a"})")));
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"b"})")));
  HandlerResult r = h.run("correct", R"({"old":"zzz","new":"c"})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message,
            R"(correct: no stored fact matches "zzz", and memory is full (2 facts) so the new fact )"
            R"(was not remembered)");
  // A correction of a stored fact needs no room.
  EXPECT_TRUE(is_ok(h.run("correct", R"({"old":"a","new":"c"})")));
  EXPECT_EQ(facts(), (Strings{"c", "b"}));
}

// ------------------------------------------------------------------------------------------ setMemory

TEST_F(Memory, SetMemoryStoresThenUpdatesAnyJson) {
  HandlerResult r = h.run("setMemory", R"({"itemId":"memory_tz","value":"CET"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(stored item "memory_tz")");
  EXPECT_EQ(r.result.at("replaced"), false);
  EXPECT_TRUE(r.result.at("expiresAt").is_null());
  EXPECT_EQ(item("memory_tz"), R"("CET")");
  r = h.run("setMemory", R"({"itemId":"memory_tz","value":{"zone":"CET","dst":true}})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(updated item "memory_tz")");
  EXPECT_EQ(item("memory_tz"), R"({"zone":"CET","dst":true})");
}

TEST_F(Memory, SetMemoryWithExpiry) {
  HandlerResult r = h.run("setMemory", R"({"itemId":"code","value":1234,"expirationInMinutes":30})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(stored item "code" (expires in 30 minutes, at 2023-11-14 22:43 UTC))");
  EXPECT_EQ(r.result.at("expiresAt"), "2023-11-14T22:43:20Z");
  h.now = kT0 + 29min;
  EXPECT_EQ(item("code"), "1234");
  h.now = kT0 + 30min;
  EXPECT_EQ(item("code"), std::nullopt);
  // Fractions of a minute work too.
  r = h.run("setMemory", R"({"itemId":"code","value":1,"expirationInMinutes":0.5})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(stored item "code" (expires in 0.5 minutes, at 2023-11-14 22:43 UTC))");
}

TEST_F(Memory, SetMemoryRefusesBadExpirations) {
  struct Case {
    const char* minutes;
    const char* message;
  };
  for (const Case& c : {
           Case{"0",
                "setMemory: expirationInMinutes must be more than 0 (got 0); leave it out for an item that "
                "never expires"},
           Case{"-5",
                "setMemory: expirationInMinutes must be more than 0 (got -5); leave it out for an item "
                "that never expires"},
           Case{"5259601",
                "setMemory: expirationInMinutes may be at most 5259600 (got 5259601); leave it out "
                "for an item that never expires"},
           Case{"\"soon\"", "setMemory: expirationInMinutes must be a number of minutes (got \"soon\")"},
       }) {
    HandlerResult r = h.run(
        "setMemory", std::string(R"({"itemId":"x","value":1,"expirationInMinutes":)") + c.minutes + "}");
    EXPECT_FALSE(is_ok(r)) << c.minutes;
    EXPECT_EQ(r.message, c.message);
  }
  EXPECT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"x","value":1,"expirationInMinutes":5259600})")));
}

TEST_F(SmallMemory, SetMemoryRefusesOverLimitIdsAndValues) {
  HandlerResult r = h.run("setMemory", R"({"itemId":"k","value":")" + std::string(40, 'v') + R"("})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message,
            R"(setMemory: the value of "k" is 42 bytes as JSON; at most 32: store less or split it)");
  r = h.run("setMemory", R"({"itemId":"an_id_of_17_bytes","value":1})");
  EXPECT_EQ(r.message, "setMemory: the item id is 17 bytes; at most 16");
  r = h.run("setMemory", R"({"itemId":"a\nb","value":1})");
  EXPECT_EQ(
      r.message,
      R"(setMemory: the item id "a b" has line breaks or control characters: use a short key like memory_tz)");
  r = h.run("setMemory", R"({"value":1})");
  EXPECT_EQ(r.message, R"(setMemory: "itemId" is missing: name the item)");
  r = h.run("setMemory", R"({"itemId":"k"})");
  EXPECT_EQ(r.message, R"(setMemory: "value" is missing: give any JSON value)");
  auto items = h.store->list_items(memory_scope(kAlice, store::MemoryScope::per_user), h.now);
  ASSERT_TRUE(items.ok());
  EXPECT_TRUE(items->empty());
}

TEST_F(SmallMemory, SetMemoryCountsOnlyLiveItemsAgainstTheLimit) {
  EXPECT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"a","value":1,"expirationInMinutes":1})")));
  EXPECT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"b","value":2})")));
  HandlerResult r = h.run("setMemory", R"({"itemId":"c","value":3})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message, "setMemory: memory is full (2 items): delete or archive items first");
  EXPECT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"b","value":22})")));  // replacing needs no room
  h.now = kT0 + 2min;                                                      // "a" expired: room again
  r = h.run("setMemory", R"({"itemId":"c","value":3})");
  EXPECT_TRUE(is_ok(r)) << r.message;
}

// ------------------------------------------------------------------------------------------ deleteItem,
// cleanup

TEST_F(Memory, DeleteItemDeletesOrSaysThereIsNone) {
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"memory_tz","value":"CET"})")));
  HandlerResult r = h.run("deleteItem", R"({"itemId":"memory_tz"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(deleted item "memory_tz")");
  r = h.run("deleteItem", R"({"itemId":"memory_tz"})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message, R"(deleteItem: no item "memory_tz" (never stored, deleted or expired))");
  r = h.run("deleteItem", R"({})");
  EXPECT_EQ(r.message, R"(deleteItem: "itemId" is missing: name the item)");
}

TEST_F(Memory, ExpiredItemsAreAbsentForEveryActionBeforeCleanup) {
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"otp","value":"1234","expirationInMinutes":5})")));
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"otp2","value":"5678","expirationInMinutes":5})")));
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"keep","value":"x"})")));
  h.now = kT0 + 5min;
  HandlerResult r = h.run("deleteItem", R"({"itemId":"otp"})");
  EXPECT_FALSE(is_ok(r)) << r.message;
  r = h.run("setMemory", R"({"itemId":"otp2","value":"new"})");
  EXPECT_EQ(r.message, R"(stored item "otp2")");  // not "updated": the old one was gone
  r = h.run("cleanupMemory", "{}");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, "removed 0 expired items");  // deleteItem and setMemory already reclaimed both
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"t","value":1,"expirationInMinutes":1})")));
  h.now += 1min;
  r = h.run("cleanupMemory", "{}");
  EXPECT_EQ(r.message, "removed 1 expired item");
  EXPECT_EQ(r.result.at("removed"), 1);
  EXPECT_EQ(item("keep"), R"("x")");
}

// ------------------------------------------------------------------------------------------ isolation

TEST_F(Memory, OneUsersMemoryIsInvisibleToAnother) {
  const exec::TurnIds bob{"bob", "conv-1", "turn-1"};
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"likes tea"})")));
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"memory_tz","value":"CET"})")));
  EXPECT_FALSE(is_ok(h.run_as(bob, "forget", R"({"fact":"tea"})")));
  HandlerResult r = h.run_as(bob, "correct", R"({"old":"likes tea","new":"likes coffee"})");
  EXPECT_EQ(r.message, R"(no stored fact matched "likes tea"; remembered: likes coffee)");
  EXPECT_FALSE(is_ok(h.run_as(bob, "deleteItem", R"({"itemId":"memory_tz"})")));
  r = h.run_as(bob, "setMemory", R"({"itemId":"memory_tz","value":"PST"})");
  EXPECT_EQ(r.message, R"(stored item "memory_tz")");
  EXPECT_EQ(facts(), Strings{"likes tea"});
  EXPECT_EQ(facts(bob), Strings{"likes coffee"});
  EXPECT_EQ(item("memory_tz"), R"("CET")");
  EXPECT_EQ(item("memory_tz", bob), R"("PST")");
}

TEST_F(Memory, PerUserMemoryIsSharedByTheUsersConversations) {
  const exec::TurnIds other{"alice", "conv-2", "turn-1"};
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"likes tea"})")));
  EXPECT_TRUE(is_ok(h.run_as(other, "forget", R"({"fact":"likes tea"})")));
}

TEST(MemoryPerConversation, KeepsConversationsApart) {
  Harness h;
  MemoryConfig config;
  config.scope = store::MemoryScope::per_conversation;
  add_memory_handlers(h.handlers, config);
  const exec::TurnIds other{"alice", "conv-2", "turn-1"};
  ASSERT_TRUE(is_ok(h.run("remember", R"({"fact":"likes tea"})")));
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"k","value":1})")));
  EXPECT_FALSE(is_ok(h.run_as(other, "forget", R"({"fact":"likes tea"})")));
  EXPECT_FALSE(is_ok(h.run_as(other, "deleteItem", R"({"itemId":"k"})")));
  auto conv1 = h.store->list_facts(memory_scope(kAlice, store::MemoryScope::per_conversation));
  ASSERT_TRUE(conv1.ok());
  EXPECT_EQ(conv1->size(), 1u);
  EXPECT_TRUE(is_ok(h.run("deleteItem", R"({"itemId":"k"})")));
}

// ------------------------------------------------------------------------------------------ failures, stop

TEST_F(Memory, StoreFailuresAreOneLineErrors) {
  h.ids.user = "";  // the store refuses a scope without a user
  for (auto [action, args] :
       {std::pair{"remember", R"({"fact":"x"})"}, std::pair{"forget", R"({"fact":"x"})"},
        std::pair{"correct", R"({"old":"x","new":"y"})"},
        std::pair{"setMemory", R"({"itemId":"k","value":1})"}, std::pair{"deleteItem", R"({"itemId":"k"})"},
        std::pair{"cleanupMemory", "{}"}}) {
    HandlerResult r = h.run(action, args);
    expect_store_failure(r, action);
    EXPECT_NE(r.message.find("no user_id"), std::string::npos) << r.message;
  }
}

TEST_F(Memory, NothingIsWrittenAfterAStopRequest) {
  h.stop.request_stop();
  for (auto [action, args] :
       {std::pair{"remember", R"({"fact":"x"})"}, std::pair{"setMemory", R"({"itemId":"k","value":1})"},
        std::pair{"correct", R"({"old":"x","new":"y"})"}}) {
    HandlerResult r = h.run(action, args);
    EXPECT_FALSE(is_ok(r));
    EXPECT_EQ(r.message, std::string(action) + ": stopped before it finished");
  }
  EXPECT_TRUE(facts().empty());
  EXPECT_EQ(item("k"), std::nullopt);
}

TEST_F(Memory, MessagesStayOneLineAndCapped) {
  const std::string fact(4000, 'z');
  HandlerResult r = h.run("remember", R"({"fact":")" + fact + R"("})");
  ASSERT_TRUE(is_ok(r));
  EXPECT_LT(r.message.size(), 400u);
  EXPECT_EQ(r.message.substr(r.message.size() - 3), "\u2026");
  r = h.run("forget", R"({"fact":"no\tsuch\rfact"})");
  EXPECT_EQ(r.message, R"(forget: no stored fact matches "no such fact")");
}

// ------------------------------------------------------------------------------------------ end to end

// The fixture's memory handlers, run by the executor on a reply the real parser reads.
class MemoryEndToEnd : public Memory {};

TEST_F(MemoryEndToEnd, AReplyThroughParserRegistryStoreAndExecutor) {
  test::TurnRun t = h.run_reply(
      "Noted! [REMEMBER:likes tea] <setMemory>{\"itemId\":\"memory_tz\",\"value\":\"CET\","
      "\"expirationInMinutes\":60}</setMemory> [CORRECT:likes tea:likes green tea] [FORGET_THIS:coffee]"
      "<deleteItem>{\"itemId\":\"nope\"}</deleteItem><cleanupMemory/>");
  ASSERT_EQ(t.report.results.size(), 6u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Ok);
  EXPECT_EQ(t.report.results[0].message, "remembered: likes tea");
  EXPECT_EQ(t.report.results[1].message,
            R"(stored item "memory_tz" (expires in 60 minutes, at 2023-11-14 23:13 UTC))");
  EXPECT_EQ(t.report.results[2].message, "corrected: \"likes tea\" \u2192 \"likes green tea\"");
  EXPECT_EQ(t.report.results[3].status, ResultStatus::Error);
  EXPECT_EQ(t.report.results[4].status, ResultStatus::Error);
  EXPECT_EQ(t.report.results[5].message, "removed 0 expired items");
  // model_on_error: only the failures go back to the model.
  EXPECT_EQ(t.model_message,
            "[4] forget: error: no stored fact matches \"coffee\"\n"
            "[5] deleteItem: error: no item \"nope\" (never stored, deleted or expired)\n");
  EXPECT_EQ(facts(), std::vector<std::string>{"likes green tea"});
  h.now = kT0 + 59min;  // the item lives for 60 minutes
  EXPECT_EQ(item("memory_tz"), R"("CET")");
}

}  // namespace
}  // namespace sigil::actions
