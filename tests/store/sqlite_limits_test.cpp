// The SQLite store's cap on history (OpenOptions::max_messages_per_conversation): each conversation keeps its
// newest messages, the oldest beyond the cap are deleted as new ones are stored. (The caps on pages and
// pending tasks: SqliteStoreCaps in sqlite_tasks_once_pages_test.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sigil/store/sqlite.h"
#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

const Scope kAliceOther{"alice", "chat-2"};

sqlite::OpenOptions keeping(std::size_t messages) {
  sqlite::OpenOptions options;
  options.max_messages_per_conversation = messages;
  return options;
}

std::vector<std::string> texts(Store& store, const Scope& scope) {
  return picked(store.recent_messages(scope, 1000), [](const Message& m) { return m.text; });
}

std::int64_t append(Store& store, const Scope& scope, const std::string& text) {
  auto id = store.append_message(scope, "user", text, "t", kT0);
  EXPECT_TRUE(id.ok()) << text << ": " << id.error();
  return id.ok() ? *id : -1;
}

TEST(SqliteLimits, HistoryCapDefaultsToTenThousand) {
  EXPECT_EQ(sqlite::OpenOptions{}.max_messages_per_conversation, 10'000u);
}

TEST(SqliteLimits, HistoryKeepsTheNewestMessagesOfEachConversation) {
  auto store = open_or_fail(":memory:", keeping(3));
  ASSERT_NE(store, nullptr);
  std::int64_t last = 0;
  for (const char* t : {"m0 alpha", "m1 bravo", "m2 charlie", "m3 delta", "m4 echo"}) {
    const std::int64_t id = append(*store, kAlice, t);
    EXPECT_GT(id, last) << t;  // the new message's own id, pruning or not
    last = id;
  }
  append(*store, kAliceOther, "other conversation");
  append(*store, kBob, "bob's own");
  EXPECT_EQ(texts(*store, kAlice), (std::vector<std::string>{"m2 charlie", "m3 delta", "m4 echo"}));
  EXPECT_EQ(store->recent_messages(kAlice, 1)->back().id, last);
  EXPECT_EQ(texts(*store, kAliceOther), (std::vector<std::string>{"other conversation"}));
  EXPECT_EQ(texts(*store, kBob), (std::vector<std::string>{"bob's own"}));
  // Deleted messages are gone from the search index too.
  EXPECT_TRUE(store->search_messages(kAlice, "alpha bravo", 10)->empty());
  EXPECT_EQ(store->search_messages(kAlice, "delta", 10)->size(), 1u);
}

TEST(SqliteLimits, HistoryCapHoldsAcrossReopenAndALowerCap) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  {
    auto store = open_or_fail(path, keeping(5));
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 7; ++i) append(*store, kAlice, "m" + std::to_string(i));
    EXPECT_EQ(texts(*store, kAlice).size(), 5u);
  }
  // Opened again with a lower cap: the next message takes the conversation down to it at once.
  auto store = open_or_fail(path, keeping(2));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(texts(*store, kAlice).size(), 5u);  // nothing is deleted before a message is stored
  append(*store, kAlice, "new");
  EXPECT_EQ(texts(*store, kAlice), (std::vector<std::string>{"m6", "new"}));
}

TEST(SqliteLimits, AZeroHistoryCapKeepsEverything) {
  auto store = open_or_fail(":memory:", keeping(0));
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 50; ++i) append(*store, kAlice, "m" + std::to_string(i));
  EXPECT_EQ(texts(*store, kAlice).size(), 50u);
}

TEST(SqliteLimits, HistoryCapAppliesToADatabaseMadeBeforeIt) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 6; ++i) append(*store, kAlice, "old " + std::to_string(i));
    append(*store, kBob, "bob old");
  }
  // What the schema looked like before the message counts (version 2): no count table, no triggers.
  EXPECT_EQ(raw_exec(path, kDropSchemaVersion3 + "UPDATE schema_version SET version = 2;"), "");
  auto store = open_or_fail(path, keeping(4));  // migrates: counts the stored messages once
  ASSERT_NE(store, nullptr);
  append(*store, kAlice, "new");
  EXPECT_EQ(texts(*store, kAlice), (std::vector<std::string>{"old 3", "old 4", "old 5", "new"}));
  append(*store, kBob, "bob new");
  EXPECT_EQ(texts(*store, kBob), (std::vector<std::string>{"bob old", "bob new"}));
}

}  // namespace
}  // namespace sigil::store::testing
