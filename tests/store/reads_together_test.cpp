// Reads made together (Store::begin_reads, ReadsTogether) share one read transaction of the read-only
// connection: counted in SqliteStore::read_transactions(), never timed.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "store/sqlite/sqlite_store.h"
#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

sqlite::SqliteStore& sqlite_of(Store& store) { return static_cast<sqlite::SqliteStore&>(store); }

Message said(const std::string& text) { return Message{0, "user", text, "t1", kT0, {}, {}}; }

// What a model call reads: the memory tier, the facts, the items, the history.
void read_like_a_call(Store& store) {
  EXPECT_TRUE(store.get_setting(kAlice, Store::kMemoryTierSetting).ok());
  EXPECT_TRUE(store.top_facts(kAlice, 10).ok());
  EXPECT_TRUE(store.recent_items(kAlice, kT0, 10).ok());
  EXPECT_TRUE(store.recent_messages(kAlice, 20).ok());
}

TEST(ReadsTogether, FourReadsTogetherAreOneReadTransactionAndFourAloneAreFour) {
  TempDir dir;
  auto store = open_or_fail(dir.file("sigil.db"));
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->remember(kAlice, "likes tea", kT0).ok());
  ASSERT_TRUE(store->append_message(kAlice, said("hello")).ok());
  const std::uint64_t start = sqlite_of(*store).read_transactions();
  read_like_a_call(*store);
  EXPECT_EQ(sqlite_of(*store).read_transactions() - start, 4u);
  {
    ReadsTogether together(*store);
    read_like_a_call(*store);
    ReadsTogether nested(*store);  // nests: still the same snapshot
    EXPECT_TRUE(store->recent_messages(kAlice, 1).ok());
  }
  EXPECT_EQ(sqlite_of(*store).read_transactions() - start, 5u);
}

// One snapshot: a message another thread appends meanwhile is not seen until the reads end, and then is.
TEST(ReadsTogether, TheReadsSeeOneSnapshotAndTheNextReadSeesLaterCommits) {
  TempDir dir;
  auto store = open_or_fail(dir.file("sigil.db"));
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->append_message(kAlice, said("one")).ok());
  {
    ReadsTogether together(*store);
    ASSERT_EQ(picked(store->recent_messages(kAlice, 10), [](const Message& m) { return m.text; }).size(), 1u);
    std::thread writer([&] { EXPECT_TRUE(store->append_message(kAlice, said("two")).ok()); });
    writer.join();  // a write never waits for the read-only connection
    EXPECT_EQ(picked(store->recent_messages(kAlice, 10), [](const Message& m) { return m.text; }),
              (std::vector<std::string>{"one"}));
  }
  EXPECT_EQ(picked(store->recent_messages(kAlice, 10), [](const Message& m) { return m.text; }),
            (std::vector<std::string>{"one", "two"}));
}

// A search indexes what is pending first (history_index_batch) and then reads in a fresh snapshot, so it
// finds the rows it just indexed even inside reads that began before.
TEST(ReadsTogether, ASearchInsideFindsTheRowsItIndexedFirst) {
  TempDir dir;
  sqlite::OpenOptions options;
  options.history_index_batch = 1000;  // never reached: the search indexes
  auto store = open_or_fail(dir.file("sigil.db"), options);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->append_message(kAlice, said("the kettle is on")).ok());
  ReadsTogether together(*store);
  EXPECT_EQ(picked(store->recent_messages(kAlice, 10), [](const Message& m) { return m.text; }).size(), 1u);
  auto hits = store->search_messages(kAlice, "kettle", 5);
  ASSERT_TRUE(hits.ok()) << hits.error();
  EXPECT_EQ(hits->size(), 1u);
  EXPECT_EQ(sqlite_of(*store).index_catch_ups(), 1u);
}

// Another thread's reads wait for the snapshot to end and then read as usual; in memory, reads together
// are plain reads (one connection).
TEST(ReadsTogether, OtherThreadsReadAfterwardsAndAStoreInMemoryReadsAsUsual) {
  TempDir dir;
  auto store = open_or_fail(dir.file("sigil.db"));
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->append_message(kAlice, said("one")).ok());
  std::thread other;
  {
    ReadsTogether together(*store);
    EXPECT_TRUE(store->recent_messages(kAlice, 10).ok());
    other = std::thread([&] { read_like_a_call(*store); });
  }
  other.join();
  auto memory = open_or_fail(":memory:");
  ASSERT_TRUE(memory);
  ASSERT_TRUE(memory->append_message(kAlice, said("one")).ok());
  ReadsTogether together(*memory);
  read_like_a_call(*memory);
  EXPECT_TRUE(memory->append_message(kAlice, said("two")).ok());  // the write lock is free
  EXPECT_EQ(sqlite_of(*memory).read_transactions(), 0u);
}

}  // namespace
}  // namespace sigil::store::testing
