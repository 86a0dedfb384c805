// SqliteStore on disk under several threads: reads on their own connection, exactly-once writes in group
// commits.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

using namespace std::chrono_literals;

TEST(SqliteConcurrency, ReadsSeeEveryWriteThatReturnedBeforeThem) {
  TempDir dir;
  auto store = open_or_fail(dir.file("sigil.db"));
  ASSERT_NE(store, nullptr);
  const Scope scope{"alice", "chat-1"};
  for (int i = 0; i < 20; ++i) {
    const std::string n = std::to_string(i);
    ASSERT_TRUE(store->append_message(scope, "user", "message " + n, "turn-" + n, kT0 + 1s * i).ok());
    auto recent = store->recent_messages(scope, 1);
    ASSERT_TRUE(recent.ok()) << recent.error();
    ASSERT_EQ(recent->size(), 1u);
    EXPECT_EQ(recent->back().text, "message " + n);
    ASSERT_TRUE(store->set_item(scope, "k", n, std::nullopt, kT0).ok());
    auto item = store->get_item(scope, "k", kT0);
    ASSERT_TRUE(item.ok() && item->has_value());
    EXPECT_EQ((*item)->value_json, n);
    ASSERT_TRUE(store->once_begin(scope, "key-" + n, kT0).ok());
    ASSERT_TRUE(store->once_complete(scope, "key-" + n, n, kT0).ok());
    EXPECT_EQ(store->once_begin(scope, "key-" + n, kT0)->state, OnceState::completed);
  }
}

// A write waiting for the database's write lock (held here by another connection, as another process
// would) holds the store's write side; a read must not wait for it.
TEST(SqliteConcurrency, AReadDoesNotWaitForAWaitingWrite) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  sqlite::OpenOptions options;
  options.busy_timeout = 60s;
  auto store = open_or_fail(path, options);
  ASSERT_NE(store, nullptr);
  const Scope scope{"alice", "chat-1"};
  ASSERT_TRUE(store->append_message(scope, "user", "hello", "turn-1", kT0).ok());

  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &other, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::atomic<bool> wrote{false};
  std::thread writer([&] {
    EXPECT_TRUE(store->once_begin(scope, "key", kT0).ok());
    EXPECT_TRUE(store->append_message(scope, "assistant", "hi", "turn-1", kT0).ok());
    wrote = true;
  });
  std::this_thread::sleep_for(100ms);  // lets the writer reach the lock (the check holds either way)
  auto recent = store->recent_messages(scope, 10);
  ASSERT_TRUE(recent.ok()) << recent.error();
  EXPECT_EQ(recent->size(), 1u);
  EXPECT_FALSE(wrote.load());  // the read returned while the write still waited
  EXPECT_TRUE(store->list_items(scope, kT0).ok());
  EXPECT_FALSE(wrote.load());
  ASSERT_EQ(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  writer.join();
  sqlite3_close(other);
  EXPECT_TRUE(wrote.load());
  EXPECT_EQ(store->recent_messages(scope, 10)->size(), 2u);
}

// Many threads beginning and completing keys at once (so writes share commits): every key is begun fresh
// exactly once, its completion is kept, and a key begun by two threads at once is fresh for one only.
TEST(SqliteConcurrency, GroupCommittedOnceWritesKeepTheirPromises) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  constexpr int kThreads = 8;
  constexpr int kKeys = 25;
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    std::atomic<int> fresh_shared{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const Scope scope{"user-" + std::to_string(t), "c"};
        const Scope shared{"everyone", "c"};
        for (int i = 0; i < kKeys; ++i) {
          const std::string key = "k" + std::to_string(i);
          auto begun = store->once_begin(scope, key, kT0);
          EXPECT_TRUE(begun.ok() && begun->state == OnceState::fresh) << begun.error();
          EXPECT_TRUE(store->once_complete(scope, key, std::to_string(i), kT0).ok());
          auto same = store->once_begin(shared, key, kT0);
          ASSERT_TRUE(same.ok()) << same.error();
          if (same->state == OnceState::fresh) ++fresh_shared;
          EXPECT_TRUE(store->recent_messages(scope, 5).ok());
        }
        // A bad result fails alone: the writes sharing its commit are kept.
        EXPECT_FALSE(store->once_complete(scope, "k0", "not json", kT0).ok());
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(fresh_shared.load(), kKeys);
  }
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  for (int t = 0; t < kThreads; ++t) {
    const Scope scope{"user-" + std::to_string(t), "c"};
    for (int i = 0; i < kKeys; ++i) {
      auto begun = store->once_begin(scope, "k" + std::to_string(i), kT0);
      ASSERT_TRUE(begun.ok());
      EXPECT_EQ(begun->state, OnceState::completed);
      EXPECT_EQ(begun->result_json, std::to_string(i));
    }
  }
  // The shared keys were begun and never completed: after the restart every one is in doubt.
  for (int i = 0; i < kKeys; ++i)
    EXPECT_EQ(store->once_begin(Scope{"everyone", "c"}, "k" + std::to_string(i), kT0)->state,
              OnceState::in_doubt);
}

}  // namespace
}  // namespace sigil::store::testing
