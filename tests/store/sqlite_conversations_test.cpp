// Conversations as a whole (Store::list_conversations, delete_conversation): the list is the user's
// conversations with messages, newest first, with title and preview; deleting one removes everything the
// interface says and nothing of another conversation or user.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "sigil/store/sqlite.h"
#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

using std::chrono::seconds;

std::vector<std::string> ids(Store& store, std::string_view user, std::size_t limit = 50) {
  return picked(store.list_conversations(user, limit),
                [](const ConversationSummary& c) { return c.conversation_id; });
}

TEST(SqliteConversations, ListedNewestFirstWithTitleAndPreview) {
  auto store = open_or_fail(":memory:");
  ASSERT_NE(store, nullptr);
  const Scope a{"alice", "chat-a"}, b{"alice", "chat-b"}, bob{"bob", "chat-z"};
  ASSERT_TRUE(store->append_message(a, "assistant", "Welcome.", "t0", kT0).ok());
  ASSERT_TRUE(
      store->append_message(a, "user", "Plan my trip to Rome. Then book it.", "t1", kT0 + seconds(1)).ok());
  ASSERT_TRUE(store->append_message(b, "user", "Hello there", "t2", kT0 + seconds(2)).ok());
  ASSERT_TRUE(store->append_message(bob, "user", "Bob's own", "t3", kT0 + seconds(3)).ok());
  ASSERT_TRUE(store->set_setting(b, "title", "Greetings", kT0).ok());
  EXPECT_EQ(ids(*store, "alice"), (std::vector<std::string>{"chat-b", "chat-a"}));
  EXPECT_EQ(ids(*store, "alice", 1), (std::vector<std::string>{"chat-b"}));
  EXPECT_EQ(ids(*store, "bob"), (std::vector<std::string>{"chat-z"}));
  EXPECT_TRUE(ids(*store, "carol").empty());

  auto list = store->list_conversations("alice", 50);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].title, "Greetings");
  EXPECT_EQ((*list)[0].preview, "Hello there");
  EXPECT_EQ((*list)[0].messages, 1u);
  EXPECT_EQ((*list)[0].updated_at, kT0 + seconds(2));
  EXPECT_EQ((*list)[1].title, "");
  EXPECT_EQ((*list)[1].preview, "Plan my trip to Rome.");  // the first user message's first sentence
  EXPECT_EQ((*list)[1].messages, 2u);

  // A new message moves a conversation to the top.
  ASSERT_TRUE(store->append_message(a, "user", "and Florence", "t4", kT0 + seconds(9)).ok());
  EXPECT_EQ(ids(*store, "alice"), (std::vector<std::string>{"chat-a", "chat-b"}));
  EXPECT_FALSE(store->list_conversations("", 10).ok());
}

TEST(SqliteConversations, DeleteRemovesTheConversationAndNothingElse) {
  auto store = open_or_fail(":memory:");
  ASSERT_NE(store, nullptr);
  const Scope gone{"alice", "chat-a"}, kept{"alice", "chat-b"};
  Scope gone_memory = gone;
  gone_memory.memory = MemoryScope::per_conversation;
  const Scope user_memory{"alice", "chat-a"};  // per-user memory: not the conversation's
  for (const Scope* s : {&gone, &kept}) {
    ASSERT_TRUE(store->append_message(*s, "user", "hi", "t1", kT0).ok());
    ASSERT_TRUE(store->append_delivery(*s, "t1", R"({"op":"reaction"})", kT0).ok());
    ASSERT_TRUE(store->set_setting(*s, "title", "x", kT0).ok());
    ASSERT_TRUE(store->add_task(*s, "", "remind", kT0 + seconds(60), kT0).ok());
    ASSERT_TRUE(store->put_page(*s, "Plan", "<p>plan</p>", false, kT0).ok());
  }
  ASSERT_TRUE(store->set_item(gone_memory, "tz", "\"CET\"", std::nullopt, kT0).ok());
  ASSERT_TRUE(store->remember(gone_memory, "likes tea", kT0).ok());
  ASSERT_TRUE(store->remember(user_memory, "lives in Oslo", kT0).ok());

  auto deleted = store->delete_conversation(gone);
  ASSERT_TRUE(deleted.ok()) << deleted.error();
  EXPECT_TRUE(*deleted);
  EXPECT_EQ(ids(*store, "alice"), (std::vector<std::string>{"chat-b"}));
  EXPECT_TRUE(store->recent_messages(gone, 10)->empty());
  EXPECT_TRUE(store->recent_deliveries(gone, 10)->empty());
  EXPECT_FALSE(store->get_setting(gone, "title")->has_value());
  EXPECT_TRUE(store->list_tasks(gone)->empty());
  EXPECT_TRUE(store->list_items(gone_memory, kT0)->empty());
  EXPECT_TRUE(store->list_facts(gone_memory)->empty());
  auto due = store->due_tasks(kT0 + seconds(61), 10);
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 1u);  // only the other conversation's reminder fires
  EXPECT_EQ((*due)[0].scope.conversation_id, "chat-b");
  // Kept: memory of the user as a whole, published pages, and the other conversation entirely.
  EXPECT_EQ(store->list_facts(user_memory)->size(), 1u);
  EXPECT_EQ(store->list_pages(gone)->size(), 1u);
  EXPECT_EQ(store->recent_messages(kept, 10)->size(), 1u);
  EXPECT_EQ(store->recent_deliveries(kept, 10)->size(), 1u);
  EXPECT_TRUE(store->get_setting(kept, "title")->has_value());

  // Deleting again finds nothing; a new message starts the conversation afresh.
  EXPECT_FALSE(*store->delete_conversation(gone));
  ASSERT_TRUE(store->append_message(gone, "user", "back", "t9", kT0 + seconds(5)).ok());
  auto list = store->list_conversations("alice", 10);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].conversation_id, "chat-a");
  EXPECT_EQ((*list)[0].messages, 1u);
  EXPECT_EQ((*list)[0].title, "");
  EXPECT_FALSE(store->delete_conversation(Scope{"alice", ""}).ok());
}

}  // namespace
}  // namespace sigil::store::testing
