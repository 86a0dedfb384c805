// Schema 10: results messages stored before they had their own role (as a later user message of a turn)
// are moved to store::kResultsRole once, so searches and histories tell them apart by role alone.
#include <gtest/gtest.h>

#include <string>

#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

TEST(SqliteSchema10, EarlierResultsMessagesGetTheirOwnRole) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  // As a version-9 gateway stored them: a turn's user message, the reply, the results (role user), the reply.
  EXPECT_EQ(make_old_history(
                path, kDropSchemaVersion11, 9,
                "('alice', 'chat-1', 'user', 'what is 6*7 exactly', 't1', 1),"
                "('alice', 'chat-1', 'assistant', '[CALCULATE:6*7]', 't1', 2),"
                "('alice', 'chat-1', 'user', 'calculate: ok: 42 exactly', 't1', 3),"
                "('alice', 'chat-1', 'assistant', 'It is 42.', 't1', 4),"
                "('alice', 'chat-2', 'user', 'exactly another chat', 't1', 5),"  // another scope's own turn
                "('bob', 'chat-1', 'user', 'exactly bob', 't1', 6),"
                "('alice', 'chat-1', 'user', 'no turn exactly', '', 7),"
                "('alice', 'chat-1', 'user', 'and again exactly', '', 8);"),
            "");
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  auto history = store->recent_messages(Scope{"alice", "chat-1"}, 10);
  ASSERT_TRUE(history.ok()) << history.error();
  ASSERT_EQ(history->size(), 6u);
  EXPECT_EQ((*history)[0].role, "user");
  EXPECT_EQ((*history)[1].role, "assistant");
  EXPECT_EQ((*history)[2].role, kResultsRole);
  EXPECT_EQ((*history)[2].text, "calculate: ok: 42 exactly");
  EXPECT_EQ((*history)[3].role, "assistant");
  EXPECT_EQ((*history)[4].role, "user");  // messages without a turn are each their own
  EXPECT_EQ((*history)[5].role, "user");
  EXPECT_EQ((*store->recent_messages(Scope{"alice", "chat-2"}, 10))[0].role, "user");
  EXPECT_EQ((*store->recent_messages(Scope{"bob", "chat-1"}, 10))[0].role, "user");
  // Searches return what the user and the model said, never the results.
  auto hits = store->search_messages(Scope{"alice", "chat-1"}, "exactly", 10);
  ASSERT_TRUE(hits.ok());
  for (const auto& hit : *hits) EXPECT_NE(hit.message.text, "calculate: ok: 42 exactly");
  EXPECT_EQ(hits->size(), 3u);
}

}  // namespace
}  // namespace sigil::store::testing
