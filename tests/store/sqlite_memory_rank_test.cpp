// SqliteStore: what the model's context reads of memory: facts by importance and recency, recent items, and
// the user's past conversations (SEARCH_EPISODIC).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

using namespace std::chrono_literals;

class SqliteMemoryRankTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_or_fail(":memory:");
    ASSERT_NE(store_, nullptr);
  }
  std::vector<std::string> top(const Scope& scope, std::size_t limit, std::size_t* total = nullptr) {
    auto ranked = store_->top_facts(scope, limit);
    EXPECT_TRUE(ranked.ok()) << ranked.error();
    std::vector<std::string> texts;
    if (!ranked.ok()) return texts;
    for (const Fact& f : ranked->facts) texts.push_back(f.text);
    if (total != nullptr) *total = ranked->total;
    return texts;
  }
  std::unique_ptr<Store> store_;
  const Scope alice_{"alice", "c1", MemoryScope::per_user};
  const Scope bob_{"bob", "c1", MemoryScope::per_user};
};

TEST_F(SqliteMemoryRankTest, AFactSaidAgainOrCorrectedRanksFirstThenTheNewest) {
  ASSERT_TRUE(*store_->remember(alice_, "likes green tea", kT0));
  ASSERT_TRUE(*store_->remember(alice_, "lives in Lisbon", kT0 + 1s));
  ASSERT_TRUE(*store_->remember(alice_, "has a cat", kT0 + 2s));
  EXPECT_EQ(top(alice_, 10), (std::vector<std::string>{"has a cat", "lives in Lisbon", "likes green tea"}));

  // Said again: not added a second time, but it matters more.
  EXPECT_FALSE(*store_->remember(alice_, "likes green tea", kT0 + 3s));
  auto facts = store_->list_facts(alice_);
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->size(), 3u);
  EXPECT_EQ(facts->front().importance, 2);
  EXPECT_EQ(facts->front().created_at, kT0);
  EXPECT_EQ(facts->front().updated_at, kT0 + 3s);
  EXPECT_EQ(top(alice_, 10), (std::vector<std::string>{"likes green tea", "has a cat", "lives in Lisbon"}));

  // A correction is the fact said again too.
  auto corrected = store_->correct(alice_, "lives in Lisbon", "lives in Porto", kT0 + 4s);
  ASSERT_TRUE(corrected.ok()) << corrected.error();
  EXPECT_EQ(top(alice_, 10), (std::vector<std::string>{"lives in Porto", "likes green tea", "has a cat"}));

  // Importance stops at its cap.
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(*store_->remember(alice_, "has a cat", kT0 + 10s + i * 1s));
  facts = store_->list_facts(alice_);
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->back().importance, kMaxFactImportance);
}

TEST_F(SqliteMemoryRankTest, TopFactsReadsOnlyTheLimitButCountsAll) {
  for (int i = 0; i < 300; ++i)
    ASSERT_TRUE(store_->remember(alice_, "fact " + std::to_string(i), kT0 + i * 1s).ok());
  ASSERT_TRUE(store_->remember(bob_, "bob's own fact", kT0).ok());
  std::size_t total = 0;
  const auto first = top(alice_, 3, &total);
  EXPECT_EQ(first, (std::vector<std::string>{"fact 299", "fact 298", "fact 297"}));
  EXPECT_EQ(total, 300u);
  EXPECT_EQ(top(bob_, 10, &total), std::vector<std::string>{"bob's own fact"});
  EXPECT_EQ(total, 1u);
  EXPECT_TRUE(top(alice_, 0, &total).empty());
  EXPECT_EQ(total, 300u);
}

TEST_F(SqliteMemoryRankTest, RecentItemsAreLiveNewestFirstAndLimited) {
  ASSERT_TRUE(store_->set_item(alice_, "a", "1", std::nullopt, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "b", "2", kT0 + 10min, kT0 + 1s).ok());
  ASSERT_TRUE(store_->set_item(alice_, "c", "3", std::nullopt, kT0 + 2s).ok());
  ASSERT_TRUE(store_->set_item(bob_, "d", "4", std::nullopt, kT0 + 3s).ok());
  auto ids = [&](TimePoint now, std::size_t limit) {
    auto items = store_->recent_items(alice_, now, limit);
    EXPECT_TRUE(items.ok()) << items.error();
    std::vector<std::string> out;
    if (items.ok())
      for (const MemoryItem& m : *items) out.push_back(m.item_id);
    return out;
  };
  EXPECT_EQ(ids(kT0 + 5s, 10), (std::vector<std::string>{"c", "b", "a"}));
  EXPECT_EQ(ids(kT0 + 5s, 2), (std::vector<std::string>{"c", "b"}));
  EXPECT_EQ(ids(kT0 + 10min, 10), (std::vector<std::string>{"c", "a"}));  // b expired
}

TEST_F(SqliteMemoryRankTest, PastConversationsAreSearchedForTheUserOnly) {
  const Scope trip{"alice", "trip", MemoryScope::per_user};
  const Scope work{"alice", "work", MemoryScope::per_user};
  const Scope bobs{"bob", "trip", MemoryScope::per_user};
  ASSERT_TRUE(store_->append_message(trip, "user", "we fly to Lisbon in May", "t1", kT0).ok());
  ASSERT_TRUE(store_->append_message(work, "assistant", "the Lisbon office opens at nine", "t2", kT0).ok());
  ASSERT_TRUE(store_->append_message(bobs, "user", "Lisbon for bob", "t3", kT0).ok());
  auto hits = store_->search_user_messages(work, "Lisbon", 10);
  ASSERT_TRUE(hits.ok()) << hits.error();
  ASSERT_EQ(hits->size(), 2u);
  std::vector<std::string> where;
  for (const MessageHit& h : *hits) where.push_back(h.conversation_id + ":" + h.message.role);
  std::sort(where.begin(), where.end());
  EXPECT_EQ(where, (std::vector<std::string>{"trip:user", "work:assistant"}));
  // The per-conversation search still stays in its conversation and names it.
  auto one = store_->search_messages(work, "Lisbon", 10);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(one->front().conversation_id, "work");
}

// A results message (what a reply's actions returned, sent back to the model as the user's) was said by
// nobody: a search of what was said never finds it, in this conversation or in past ones.
TEST_F(SqliteMemoryRankTest, ResultsMessagesAreNotWhatAnyoneSaid) {
  const Scope trip{"alice", "trip", MemoryScope::per_user};
  ASSERT_TRUE(store_->append_message(trip, "user", "find flights to Lisbon", "t1", kT0).ok());
  ASSERT_TRUE(store_
                  ->append_message(trip, std::string(kResultsRole),
                                   "[1] search: ok: 3 results for \"Lisbon flights\"", "t1", kT0)
                  .ok());
  for (const auto& hits :
       {store_->search_messages(trip, "Lisbon", 10), store_->search_user_messages(trip, "Lisbon", 10)}) {
    ASSERT_TRUE(hits.ok()) << hits.error();
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_EQ(hits->front().message.role, "user");
  }
  // It stays in the history the model reads.
  auto recent = store_->recent_messages(trip, 10);
  ASSERT_TRUE(recent.ok());
  ASSERT_EQ(recent->size(), 2u);
  EXPECT_EQ(recent->back().role, kResultsRole);
}

// A database of version 6: its facts keep their text and dates, start at importance 1, and rank.
TEST(SqliteMemoryRankMigration, VersionSixFactsGainImportance) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  const Scope alice{"alice", "c1", MemoryScope::per_user};
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->remember(alice, "old fact", kT0).ok());
    ASSERT_TRUE(store->remember(alice, "newer fact", kT0 + 1s).ok());
  }
  EXPECT_EQ(raw_exec(path, kDropSchemaVersion7 + "UPDATE schema_version SET version = 6;"), "");
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  auto facts = store->list_facts(alice);
  ASSERT_TRUE(facts.ok()) << facts.error();
  ASSERT_EQ(facts->size(), 2u);
  EXPECT_EQ(facts->at(0).importance, 1);
  EXPECT_EQ(facts->at(0).updated_at, kT0);
  ASSERT_FALSE(*store->remember(alice, "old fact", kT0 + 2s));
  auto ranked = store->top_facts(alice, 5);
  ASSERT_TRUE(ranked.ok());
  ASSERT_EQ(ranked->facts.size(), 2u);
  EXPECT_EQ(ranked->facts[0].text, "old fact");
}

}  // namespace
}  // namespace sigil::store::testing
