// The archive handlers (archiveItems, searchArchive / SEARCH_EPISODIC, request-tier) over a real SQLite
// store: results, bounds, expiry, isolation, store failures, and replies through the executor.
#include "sigil/actions/archive.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>

#include "memory_test_support.h"
#include "sigil/actions/memory.h"

namespace sigil::actions {
namespace {

using namespace std::chrono_literals;
using namespace testing;

const exec::TurnIds kBob{"bob", "conv-1", "turn-1"};

class Archive : public ::testing::Test {
 protected:
  explicit Archive(ArchiveConfig config = {}) {
    add_memory_handlers(h.handlers);
    add_archive_handlers(h.handlers, config);
  }

  void set(std::string_view id, std::string_view value_json, const exec::TurnIds& who = kAlice) {
    HandlerResult r =
        h.run_as(who, "setMemory",
                 R"({"itemId":")" + std::string(id) + R"(","value":)" + std::string(value_json) + "}");
    ASSERT_TRUE(is_ok(r)) << r.message;
  }

  void add_text(std::string_view title, std::string_view text) {
    auto id = h.store->add_archive_text(memory_scope(kAlice, store::MemoryScope::per_user), title, text,
                                        "note", kT0);
    ASSERT_TRUE(id.ok()) << id.error();
  }

  void say(std::string_view role, std::string_view text, store::TimePoint at,
           const exec::TurnIds& who = kAlice) {
    auto id = h.store->append_message({who.user, who.conversation, store::MemoryScope::per_user}, role, text,
                                      who.turn, at);
    ASSERT_TRUE(id.ok()) << id.error();
  }

  Harness h;
};

class SmallArchive : public Archive {
 protected:
  static ArchiveConfig small() {
    ArchiveConfig c;
    c.hit_text_bytes = 20;
    c.message_bytes = 120;
    c.max_archive_ids = 3;
    return c;
  }
  SmallArchive() : Archive(small()) {}
};

// ------------------------------------------------------------------------------------------ archiveItems

TEST_F(Archive, ArchiveItemsMovesLiveItemsAndNamesMissingOnes) {
  set("memory_tz", R"("CET")");
  set("trip", R"({"to":"Lisbon"})");
  HandlerResult r = h.run("archiveItems", R"({"items":["memory_tz","trip","gone"]})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(archived 2 items; not found: "gone")");
  EXPECT_EQ(r.result.at("archived"), 2);
  EXPECT_EQ(r.result.at("missing"), boost::json::array{"gone"});
  // Moved, not copied.
  EXPECT_FALSE(is_ok(h.run("deleteItem", R"({"itemId":"memory_tz"})")));
  r = h.run("searchArchive", R"({"query":"Lisbon"})");
  EXPECT_EQ(r.message.rfind("1 result for \"Lisbon\": [1] (", 0), 0u) << r.message;
}

TEST_F(Archive, ArchivingNothingIsAnError) {
  set("otp", R"("1234")");
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"otp","value":"1234","expirationInMinutes":1})")));
  h.now = kT0 + 1min;  // expired: counts as missing
  HandlerResult r = h.run("archiveItems", R"({"items":["otp","never"]})");
  EXPECT_FALSE(is_ok(r));
  EXPECT_EQ(r.message,
            R"(archiveItems: nothing archived: no item "otp", "never" (never stored, deleted or expired))");
}

TEST_F(SmallArchive, ArchiveItemsRefusesBadIdLists) {
  struct Case {
    const char* args;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"items":[]})", R"(archiveItems: "items" must be a non-empty array of item ids)"},
           Case{R"({"items":"a"})", R"(archiveItems: "items" must be a non-empty array of item ids)"},
           Case{R"({})", R"(archiveItems: "items" must be a non-empty array of item ids)"},
           Case{R"({"items":["a",5]})",
                R"(archiveItems: "items" must hold item ids as non-empty strings; item 2 is 5)"},
           Case{R"({"items":["a",{"id":"b"}]})",
                R"(archiveItems: "items" must hold item ids as non-empty strings; item 2 is {"id":"b"})"},
           Case{R"({"items":["a"," "]})",
                R"(archiveItems: "items" must hold item ids as non-empty strings; item 2 is "")"},
           Case{R"({"items":["a","b","c","d"]})", "archiveItems: 4 ids given; at most 3 per call"},
       }) {
    HandlerResult r = h.run("archiveItems", c.args);
    EXPECT_FALSE(is_ok(r)) << c.args;
    EXPECT_EQ(r.message, c.message);
  }
}

// ------------------------------------------------------------------------------------------ searchArchive

TEST_F(Archive, SearchCarriesTheHitsInTheMessage) {
  set("memory_tz", R"("CET, the user's time zone")");
  set("drinks", R"("likes green tea in the morning")");
  ASSERT_TRUE(is_ok(h.run("archiveItems", R"({"items":["memory_tz","drinks"]})")));
  add_text("", "tea ceremony notes\nsecond line");
  HandlerResult r = h.run("searchArchive", R"({"query":"tea"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_TRUE(one_line(r.message)) << r.message;
  EXPECT_EQ(r.message.rfind("2 results for \"tea\": [1] (0.", 0), 0u) << r.message;
  EXPECT_NE(r.message.find(") drinks, 2023-11-14: likes green tea in the morning"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find(" | [2] (0."), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(") 2023-11-14: tea ceremony notes second line"), std::string::npos) << r.message;
  const auto& hits = r.result.at("hits").as_array();
  ASSERT_EQ(hits.size(), 2u);
  for (const auto& hit : hits) {
    for (const char* key : {"id", "title", "text", "score", "source", "createdAt"})
      EXPECT_TRUE(hit.as_object().contains(key)) << key;
  }
  bool found_note = false;
  for (const auto& hit : hits) {
    if (hit.at("source") == "note") {
      found_note = true;
      EXPECT_EQ(hit.at("text"), "tea ceremony notes\nsecond line");  // the JSON keeps it as stored
    } else {
      EXPECT_EQ(hit.at("source"), "memory");
      EXPECT_EQ(hit.at("title"), "drinks");
    }
  }
  EXPECT_TRUE(found_note);
}

TEST_F(Archive, SearchHonoursTopKAndMinScore) {
  for (int i = 0; i < 5; ++i) add_text("t" + std::to_string(i), "tea number " + std::to_string(i));
  add_text("other", "coffee");
  HandlerResult r = h.run("searchArchive", R"({"query":"tea","topK":2})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.result.at("hits").as_array().size(), 2u);
  EXPECT_EQ(r.message.rfind("2 results for \"tea\"", 0), 0u) << r.message;
  r = h.run("searchArchive", R"({"query":"tea","minScore":1})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(no results for "tea")");
  r = h.run("searchArchive", R"({"query":"tea","topK":50,"minScore":0})");
  EXPECT_EQ(r.result.at("hits").as_array().size(), 5u);
}

TEST_F(Archive, SearchRefusesOutOfRangeArguments) {
  struct Case {
    const char* args;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"query":"tea","topK":0})",
                "searchArchive: topK must be a whole number from 1 to 50 (got 0)"},
           Case{R"({"query":"tea","topK":51})",
                "searchArchive: topK must be a whole number from 1 to 50 (got 51)"},
           Case{R"({"query":"tea","topK":2.5})",
                "searchArchive: topK must be a whole number from 1 to 50 (got 2.5)"},
           Case{R"({"query":"tea","minScore":-0.1})",
                "searchArchive: minScore must be a number from 0 to 1 (got -0.1)"},
           Case{R"({"query":"tea","minScore":1.5})",
                "searchArchive: minScore must be a number from 0 to 1 (got 1.5)"},
           Case{R"({"query":"tea","minScore":"high"})",
                R"(searchArchive: minScore must be a number from 0 to 1 (got "high"))"},
           Case{R"({"query":"  "})", R"(searchArchive: "query" is missing: write what to look for)"},
       }) {
    HandlerResult r = h.run("searchArchive", c.args);
    EXPECT_FALSE(is_ok(r)) << c.args;
    EXPECT_EQ(r.message, c.message);
  }
}

TEST_F(Archive, NoHitsIsOk) {
  HandlerResult r = h.run("searchArchive", R"({"query":"anything"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(no results for "anything")");
  EXPECT_TRUE(r.result.at("hits").as_array().empty());
}

TEST_F(SmallArchive, LongTextsAndManyHitsAreCapped) {
  for (int i = 0; i < 6; ++i) add_text("n" + std::to_string(i), "tea " + std::string(100, 'a' + i));
  HandlerResult r = h.run("searchArchive", R"({"query":"tea"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message.rfind("6 results for \"tea\": [1] (", 0), 0u) << r.message;
  EXPECT_NE(r.message.find("\u2026"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("more not shown: ask more narrowly)"), std::string::npos) << r.message;
  EXPECT_LT(r.message.size(), 200u) << r.message;
  EXPECT_EQ(r.result.at("hits").as_array().size(), 6u);  // the JSON has them all
}

// ------------------------------------------------------------------------------------------ request-tier

TEST_F(Archive, RequestTierGivesMatchingMessagesAtTheLevel) {
  say("user", "I would like green tea. Make it strong.\n\nAlso a biscuit.", kT0);
  say("assistant", "Here is your tea.", kT0 + 1min);
  say("user", "Coffee is fine too.", kT0 + 2min);
  HandlerResult r = h.run("request-tier", R"({"level":1,"content":"tea"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_TRUE(one_line(r.message));
  EXPECT_EQ(r.message.rfind("2 stored messages match \"tea\" (level 1, first sentences): [1] ", 0), 0u)
      << r.message;
  EXPECT_NE(r.message.find("user, 2023-11-14 22:13 UTC: I would like green tea."), std::string::npos)
      << r.message;
  EXPECT_EQ(r.message.find("strong"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("assistant, 2023-11-14 22:14 UTC: Here is your tea."), std::string::npos);
  r = h.run("request-tier", R"({"level":3,"content":"biscuit"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(
      r.message,
      "1 stored message matches \"biscuit\" (level 3, full texts): [1] user, 2023-11-14 22:13 UTC: I would "
      "like green tea. Make it strong. Also a biscuit.");
  const auto& messages = r.result.at("messages").as_array();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].at("text"), "I would like green tea. Make it strong.\n\nAlso a biscuit.");
  EXPECT_EQ(messages[0].at("role"), "user");
  EXPECT_EQ(messages[0].at("at"), "2023-11-14T22:13:20Z");
}

TEST_F(Archive, RequestTierBoundsAndNoMatch) {
  for (const char* args : {R"({"level":0,"content":"tea"})", R"({"level":4,"content":"tea"})",
                           R"({"level":"x","content":"tea"})", R"({"content":"tea"})"}) {
    HandlerResult r = h.run("request-tier", args);
    EXPECT_FALSE(is_ok(r)) << args;
    EXPECT_EQ(
        r.message.rfind("request-tier: level must be 1 (first sentence), 2 (first paragraph) or 3 (full "
                        "text) (got ",
                        0),
        0u)
        << r.message;
  }
  HandlerResult r = h.run("request-tier", R"({"level":2,"content":" "})");
  EXPECT_EQ(r.message, R"(request-tier: "content" is missing: write what to look up in this conversation)");
  r = h.run("request-tier", R"({"level":2,"content":"tea"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(no stored messages match "tea")");
}

// ------------------------------------------------------------------------------------------ isolation

TEST_F(Archive, OneUsersArchiveAndHistoryAreInvisibleToAnother) {
  set("memory_tz", R"("CET zone")");
  ASSERT_TRUE(is_ok(h.run("archiveItems", R"({"items":["memory_tz"]})")));
  say("user", "my secret tea recipe", kT0);
  set("memory_tz", R"("PST zone")", kBob);
  HandlerResult r = h.run_as(kBob, "searchArchive", R"({"query":"CET zone"})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.message, R"(no results for "CET zone")");
  r = h.run_as(kBob, "archiveItems", R"({"items":["memory_tz"]})");
  ASSERT_TRUE(is_ok(r)) << r.message;
  r = h.run_as(kBob, "searchArchive", R"({"query":"zone"})");
  EXPECT_EQ(r.message.find("CET"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("PST"), std::string::npos) << r.message;
  r = h.run_as(kBob, "request-tier", R"({"level":3,"content":"secret tea"})");
  EXPECT_EQ(r.message, R"(no stored messages match "secret tea")");
  // History belongs to the conversation even when memory is per user.
  r = h.run_as({"alice", "conv-2", "turn-1"}, "request-tier", R"({"level":3,"content":"secret tea"})");
  EXPECT_EQ(r.message, R"(no stored messages match "secret tea")");
  r = h.run_as({"alice", "conv-2", "turn-1"}, "searchArchive", R"({"query":"CET"})");
  EXPECT_EQ(r.message.rfind("1 result for \"CET\"", 0), 0u) << r.message;
}

TEST(ArchivePerConversation, KeepsConversationsApart) {
  Harness h;
  MemoryConfig memory;
  memory.scope = store::MemoryScope::per_conversation;
  ArchiveConfig archive;
  archive.scope = store::MemoryScope::per_conversation;
  add_memory_handlers(h.handlers, memory);
  add_archive_handlers(h.handlers, archive);
  const exec::TurnIds other{"alice", "conv-2", "turn-1"};
  ASSERT_TRUE(is_ok(h.run("setMemory", R"({"itemId":"k","value":"lisbon trip"})")));
  EXPECT_FALSE(is_ok(h.run_as(other, "archiveItems", R"({"items":["k"]})")));
  ASSERT_TRUE(is_ok(h.run("archiveItems", R"({"items":["k"]})")));
  EXPECT_EQ(h.run_as(other, "searchArchive", R"({"query":"lisbon"})").message, R"(no results for "lisbon")");
  EXPECT_EQ(h.run("searchArchive", R"({"query":"lisbon"})").message.rfind("1 result", 0), 0u);
}

// ------------------------------------------------------------------------------------------ failures, stop

TEST_F(Archive, StoreFailuresAreOneLineErrors) {
  h.ids.user = "";
  for (auto [action, args] :
       {std::pair{"archiveItems", R"({"items":["a"]})"}, std::pair{"searchArchive", R"({"query":"tea"})"},
        std::pair{"request-tier", R"({"level":1,"content":"tea"})"}}) {
    expect_store_failure(h.run(action, args), action);
  }
}

TEST_F(Archive, NothingIsArchivedAfterAStopRequest) {
  set("k", "1");
  h.stop.request_stop();
  HandlerResult r = h.run("archiveItems", R"({"items":["k"]})");
  EXPECT_EQ(r.message, "archiveItems: stopped before it finished");
  h.stop = std::stop_source();
  EXPECT_TRUE(is_ok(h.run("deleteItem", R"({"itemId":"k"})")));  // still a live item
}

// ------------------------------------------------------------------------------------------ end to end

// The fixture's memory and archive handlers, run by the executor on replies the real parser reads.
class ArchiveEndToEnd : public Archive {};

TEST_F(ArchiveEndToEnd, StoreArchiveThenSearchThroughTheExecutor) {
  // Turn 1: setMemory and archiveItems are serial per conversation, so they run in reply order.
  test::TurnRun t1 = h.run_reply(
      "[REMEMBER:likes tea] <setMemory>{\"itemId\":\"memory_tz\",\"value\":\"CET\"}</setMemory>"
      "<setMemory>{\"itemId\":\"drink\",\"value\":\"green tea, no sugar\"}</setMemory>"
      "<archiveItems>[\"memory_tz\", \"drink\", \"ghost\"]</archiveItems> Done.");
  ASSERT_EQ(t1.report.results.size(), 4u);
  for (const auto& r : t1.report.results) EXPECT_EQ(r.status, ResultStatus::Ok) << r.message;
  EXPECT_EQ(t1.report.results[3].message, R"(archived 2 items; not found: "ghost")");
  EXPECT_EQ(t1.model_message, "");

  // Turn 2: both spellings of searchArchive, and request-tier over the stored history.
  ASSERT_TRUE(
      h.store->append_message({"alice", "conv-1"}, "user", "Which tea do I like? Tell me.", "turn-1", kT0)
          .ok());
  exec::TurnIds turn2 = kAlice;
  turn2.turn = "turn-2";
  test::TurnRun t2 = h.run_reply(
      "Let me look. <searchArchive>{\"query\":\"tea\",\"topK\":5}</searchArchive> [SEARCH_EPISODIC:CET] "
      "[REQUEST_TIER:1:tea] <searchArchive>{\"query\":\"tea\",\"topK\":99}</searchArchive>",
      turn2, kT0 + 1h);
  ASSERT_EQ(t2.report.results.size(), 4u);
  EXPECT_EQ(t2.report.results[1].action, "searchArchive");
  const std::string& m = t2.model_message;
  // The archive and the conversation's earlier messages (SEARCH_EPISODIC searches past conversations).
  EXPECT_NE(m.find("[1] searchArchive: ok: 2 results for \"tea\": [1] ("), std::string::npos) << m;
  EXPECT_NE(m.find(") drink, 2023-11-14: green tea, no sugar"), std::string::npos) << m;
  EXPECT_NE(m.find(") the user said, 2023-11-14: Which tea do I like? Tell me."), std::string::npos) << m;
  EXPECT_NE(m.find("[2] searchArchive: ok: 1 result for \"CET\": [1] ("), std::string::npos) << m;
  EXPECT_NE(m.find(") memory_tz, 2023-11-14: CET\n"), std::string::npos) << m;
  EXPECT_NE(
      m.find("[3] request-tier: ok: 1 stored message matches \"tea\" (level 1, first sentences): [1] user, "
             "2023-11-14 22:13 UTC: Which tea do I like?\n"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("[4] searchArchive: error: topK must be a whole number from 1 to 50 (got 99)\n"),
            std::string::npos)
      << m;
  // request-tier keeps its level as the conversation's memory tier.
  EXPECT_EQ(h.store->get_setting({"alice", "conv-1"}, store::Store::kMemoryTierSetting)->value_or("?"), "1");
}

}  // namespace
}  // namespace sigil::actions
