// Deliveries kept with the history (Store::append_delivery, recent_deliveries): per conversation, oldest
// first, JSON objects only, and gone with their turn when the history cap prunes its last message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sigil/store/sqlite.h"
#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

std::vector<std::string> turns(Store& store, const Scope& scope) {
  return picked(store.recent_deliveries(scope, 100),
                [](const StoredDelivery& d) { return d.turn_id + " " + d.json; });
}

TEST(SqliteDeliveries, KeptPerConversationOldestFirst) {
  auto store = open_or_fail(":memory:");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->append_message(kAlice, "user", "hi", "t1", kT0).ok());
  ASSERT_TRUE(store->append_delivery(kAlice, "t1", R"({"op":"reaction","emoji":"👍"})", kT0).ok());
  ASSERT_TRUE(store->append_delivery(kAlice, "t1", R"({"op":"file","url":"/media/x/a.pdf"})", kT0).ok());
  ASSERT_TRUE(store->append_delivery(kBob, "t9", R"({"op":"voice"})", kT0).ok());
  EXPECT_EQ(turns(*store, kAlice), (std::vector<std::string>{R"(t1 {"op":"reaction","emoji":"👍"})",
                                                             R"(t1 {"op":"file","url":"/media/x/a.pdf"})"}));
  EXPECT_EQ(turns(*store, kBob).size(), 1u);
  auto last = store->recent_deliveries(kAlice, 1);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 1u);
  EXPECT_NE((*last)[0].json.find("a.pdf"), std::string::npos);
}

TEST(SqliteDeliveries, OnlyJsonObjectsAreKept) {
  auto store = open_or_fail(":memory:");
  ASSERT_NE(store, nullptr);
  EXPECT_FALSE(store->append_delivery(kAlice, "t1", "not json", kT0).ok());
  EXPECT_FALSE(store->append_delivery(kAlice, "t1", "[1,2]", kT0).ok());
  EXPECT_TRUE(turns(*store, kAlice).empty());
}

TEST(SqliteDeliveries, ATurnsDeliveriesGoWithItsLastMessage) {
  sqlite::OpenOptions options;
  options.max_messages_per_conversation = 2;
  auto store = open_or_fail(":memory:", options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->append_message(kAlice, "user", "q1", "t1", kT0).ok());
  ASSERT_TRUE(store->append_message(kAlice, "assistant", "a1", "t1", kT0).ok());
  ASSERT_TRUE(store->append_delivery(kAlice, "t1", R"({"op":"reaction"})", kT0).ok());
  ASSERT_TRUE(store->append_message(kAlice, "user", "q2", "t2", kT0).ok());  // prunes q1: t1 still has a1
  EXPECT_EQ(turns(*store, kAlice).size(), 1u);
  ASSERT_TRUE(store->append_delivery(kAlice, "t2", R"({"op":"voice"})", kT0).ok());
  ASSERT_TRUE(store->append_message(kAlice, "assistant", "a2", "t2", kT0).ok());  // prunes a1: t1 is gone
  EXPECT_EQ(turns(*store, kAlice), (std::vector<std::string>{R"(t2 {"op":"voice"})"}));
}

}  // namespace
}  // namespace sigil::store::testing
