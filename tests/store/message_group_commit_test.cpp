// History appends that wait at the same time share one transaction (SqliteStore, group_commit.h): counted
// in commits and batches, never timed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite/group_commit.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

struct CountedOp {
  int n = 0;
  bool done = false;
  std::exception_ptr thrown;
};

TEST(GroupCommit, OpsQueuedWhileALeaderRunsGoOutTogetherInTheNextBatch) {
  sqlite::GroupCommit<CountedOp> commits;
  constexpr int kFollowers = 5;
  std::vector<std::size_t> batch_sizes;  // only leaders touch it, one at a time
  std::atomic<bool> first_running{false};
  auto run = [&](const std::vector<CountedOp*>& batch) {
    batch_sizes.push_back(batch.size());
    if (batch_sizes.size() > 1) return;
    first_running = true;
    while (commits.queued() < static_cast<std::size_t>(kFollowers)) std::this_thread::yield();
  };
  std::vector<CountedOp> ops(kFollowers + 1);
  std::vector<std::thread> threads;
  auto submit = [&](int i) {
    CountedOp* const one[] = {&ops[i]};
    commits.commit(std::span<CountedOp* const>(one), run);
    EXPECT_TRUE(ops[i].done);
  };
  threads.emplace_back(submit, 0);
  while (!first_running) std::this_thread::yield();
  for (int i = 1; i <= kFollowers; ++i) threads.emplace_back(submit, i);
  for (auto& t : threads) t.join();
  EXPECT_EQ(commits.batches(), 2u);
  EXPECT_EQ(batch_sizes, (std::vector<std::size_t>{1, kFollowers}));
  EXPECT_EQ(commits.queued(), 0u);
}

// A run that throws (bad_alloc, a bug) fails its own batch and gives the leader role up: the followers that
// waited behind it go out in the next batch, and a later commit works. Without that, leader_ stayed set and
// every follower waited for ever; the test waits for the threads only so long, so a hang fails it.
TEST(GroupCommit, ARunThatThrowsFailsItsBatchAndTheFollowersAndLaterCommitsStillGoOut) {
  constexpr int kFollowers = 4;
  struct Shared {  // on the heap, held by every thread: a thread left hanging outlives the test safely
    sqlite::GroupCommit<CountedOp> commits;
    std::vector<CountedOp> ops = std::vector<CountedOp>(kFollowers + 1);
    std::vector<std::size_t> batch_sizes;  // only leaders touch it, one at a time
    std::atomic<bool> first_running{false};
    std::vector<std::string> caught = std::vector<std::string>(kFollowers + 1);
    std::mutex mu;
    std::condition_variable cv;
    int finished = 0;
  };
  auto shared = std::make_shared<Shared>();
  auto run = [](Shared& s) {
    return [&s](const std::vector<CountedOp*>& batch) {
      s.batch_sizes.push_back(batch.size());
      if (s.batch_sizes.size() == 1) {  // the first leader throws once every follower waits behind it
        s.first_running = true;
        while (s.commits.queued() < static_cast<std::size_t>(kFollowers)) std::this_thread::yield();
        throw std::runtime_error("first batch");
      }
      throw std::runtime_error("second batch");
    };
  };
  auto submit = [shared, run](int i) {
    Shared& s = *shared;
    CountedOp* const one[] = {&s.ops[i]};
    try {
      s.commits.commit(std::span<CountedOp* const>(one), run(s));
    } catch (const std::runtime_error& e) {
      s.caught[i] = e.what();
    }
    std::lock_guard lock(s.mu);
    ++s.finished;
    s.cv.notify_all();
  };
  std::vector<std::thread> threads;
  threads.emplace_back(submit, 0);
  while (!shared->first_running) std::this_thread::yield();
  for (int i = 1; i <= kFollowers; ++i) threads.emplace_back(submit, i);
  bool all_finished = false;
  {
    std::unique_lock lock(shared->mu);
    all_finished = shared->cv.wait_for(lock, std::chrono::seconds(60),
                                       [&] { return shared->finished == kFollowers + 1; });
  }
  if (!all_finished) {
    for (auto& t : threads) t.detach();
    FAIL() << "followers still wait behind a leader whose run threw";
  }
  for (auto& t : threads) t.join();
  Shared& s = *shared;
  EXPECT_EQ(s.caught[0], "first batch");
  for (int i = 1; i <= kFollowers; ++i) {
    EXPECT_EQ(s.caught[i], "second batch") << i;
    EXPECT_TRUE(s.ops[i].done) << i;
  }
  EXPECT_EQ(s.batch_sizes, (std::vector<std::size_t>{1, kFollowers}));

  CountedOp later;
  CountedOp* const one[] = {&later};
  s.commits.commit(std::span<CountedOp* const>(one), [](const std::vector<CountedOp*>& batch) {
    for (CountedOp* o : batch) o->n = 1;
  });
  EXPECT_TRUE(later.done);
  EXPECT_EQ(later.n, 1);
  EXPECT_FALSE(later.thrown);
  EXPECT_EQ(s.commits.batches(), 3u);
  EXPECT_EQ(s.commits.queued(), 0u);
}

// Holds the database's write lock on a connection of its own until release().
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  ~WriteLock() {
    release();
    sqlite3_close(db_);
  }
  void release() {
    if (held_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    held_ = false;
  }
  sqlite3* db() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
  bool held_ = true;
};

class MessageGroupCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_or_fail(path_);
    ASSERT_NE(store_, nullptr);
    sqlite_ = dynamic_cast<sqlite::SqliteStore*>(store_.get());
    ASSERT_NE(sqlite_, nullptr);
  }

  // One append on its own thread; its outcome lands in results_[i].
  void append(std::vector<std::thread>& threads, int i, std::string text) {
    threads.emplace_back([this, i, text = std::move(text)] {
      results_[i] = store_->append_message(Scope{"alice", "chat-" + std::to_string(i % 3)}, "user", text,
                                           "turn-" + std::to_string(i), kT0);
    });
  }

  // Appends texts[0], then texts 1..n-1 behind it, whose batch waits for the write lock: they queue
  // meanwhile.
  void run_behind_a_held_lock(const std::vector<std::string>& texts) {
    const int n = static_cast<int>(texts.size());
    results_.assign(n, Error{"not run"});
    WriteLock lock(path_);
    const std::uint64_t batches = sqlite_->message_batches();
    std::vector<std::thread> threads;
    append(threads, 0, texts[0]);
    while (sqlite_->message_batches() == batches) std::this_thread::yield();  // its leader waits in BEGIN
    for (int i = 1; i < n; ++i) append(threads, i, texts[i]);
    while (sqlite_->queued_messages() < static_cast<std::size_t>(n - 1)) std::this_thread::yield();
    lock.release();
    for (auto& t : threads) t.join();
  }

  // A trigger on messages, added on a connection of its own, that fails the insert of a message whose text
  // is `text` with RAISE(`how`, `why`): ABORT undoes that statement alone, ROLLBACK the whole transaction.
  void fail_inserts_of(const std::string& text, const std::string& how, const std::string& why) {
    WriteLock setup(path_);
    const std::string create = "CREATE TRIGGER fail_insert AFTER INSERT ON messages WHEN new.text = '" +
                               text + "' BEGIN SELECT RAISE(" + how + ", '" + why + "'); END";
    ASSERT_EQ(sqlite3_exec(setup.db(), (create + "; COMMIT").c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  }

  // The texts stored in the three conversations the appends use.
  std::set<std::string> stored_texts() {
    std::set<std::string> stored;
    for (int c = 0; c < 3; ++c) {
      auto recent = store_->recent_messages(Scope{"alice", "chat-" + std::to_string(c)}, 100);
      EXPECT_TRUE(recent.ok()) << recent.error();
      if (recent)
        for (const Message& m : *recent) stored.insert(m.text);
    }
    return stored;
  }

  TempDir dir_;
  std::string path_ = dir_.file("sigil.db");
  std::unique_ptr<Store> store_;
  sqlite::SqliteStore* sqlite_ = nullptr;
  std::vector<Result<std::int64_t>> results_;
};

TEST_F(MessageGroupCommit, TenAppendsWaitingTogetherCostTwoCommitsAndEachIsKept) {
  constexpr int kAppends = 10;
  std::vector<std::string> texts;
  for (int i = 0; i < kAppends; ++i) texts.push_back("message " + std::to_string(i));
  const std::uint64_t commits = sqlite_->commits();
  const std::uint64_t batches = sqlite_->message_batches();
  run_behind_a_held_lock(texts);
  // The first alone, the nine that queued behind it in one transaction (one at a time: ten).
  EXPECT_EQ(sqlite_->commits() - commits, 2u);
  EXPECT_EQ(sqlite_->message_batches() - batches, 2u);
  std::set<std::int64_t> ids;
  for (const auto& r : results_) {
    ASSERT_TRUE(r.ok()) << r.error();
    ids.insert(*r);
  }
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kAppends));
  std::size_t stored = 0;
  for (int c = 0; c < 3; ++c) {
    auto recent = store_->recent_messages(Scope{"alice", "chat-" + std::to_string(c)}, 100);
    ASSERT_TRUE(recent.ok()) << recent.error();
    for (const Message& m : *recent) {
      EXPECT_EQ(m.text, "message " + m.turn_id.substr(5));
      EXPECT_EQ(std::stoi(m.turn_id.substr(5)) % 3, c);  // in its own conversation
    }
    stored += recent->size();
  }
  EXPECT_EQ(stored, static_cast<std::size_t>(kAppends));
  // Searchable like any other: the FTS index took every one of the batch.
  auto hits = store_->search_messages(Scope{"alice", "chat-1"}, "message", 10);
  ASSERT_TRUE(hits.ok()) << hits.error();
  EXPECT_EQ(hits->size(), 3u);  // 1, 4, 7
}

TEST_F(MessageGroupCommit, AnAppendThatFailsInABatchIsUndoneAloneAndTheOthersAreKept) {
  fail_inserts_of("refused", "ABORT", "refused by the test");
  const std::vector<std::string> texts = {"first", "kept a", "refused", "kept b", "kept c"};
  const std::uint64_t commits = sqlite_->commits();
  run_behind_a_held_lock(texts);
  EXPECT_EQ(sqlite_->commits() - commits, 2u);
  for (std::size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(results_[i].ok(), texts[i] != "refused") << texts[i];
  EXPECT_EQ(stored_texts(), (std::set<std::string>{"first", "kept a", "kept b", "kept c"}));
}

// An error that ends the whole transaction (here a trigger's RAISE(ROLLBACK), as an I/O error or a full disk
// would) undoes the batch's earlier appends too: every append of that batch must then report the failure,
// none may claim an id whose row is gone, and the transaction must not be committed half-done.
TEST_F(MessageGroupCommit, AnErrorThatEndsTheTransactionFailsTheWholeBatchAndClaimsNoLostRow) {
  fail_inserts_of("doomed", "ROLLBACK", "transaction ended by the test");
  const std::vector<std::string> texts = {"first", "undone a", "doomed", "after b", "after c"};
  const std::uint64_t batches = sqlite_->message_batches();
  run_behind_a_held_lock(texts);
  ASSERT_EQ(sqlite_->message_batches() - batches, 2u);  // "first" alone, the other four together
  EXPECT_TRUE(results_[0].ok()) << results_[0].error();
  for (std::size_t i = 1; i < texts.size(); ++i) EXPECT_FALSE(results_[i].ok()) << texts[i];
  EXPECT_EQ(stored_texts(), (std::set<std::string>{"first"}));
  // The store goes on: the next append is a transaction of its own and is kept.
  auto next = store_->append_message(Scope{"alice", "chat-0"}, "user", "later", "turn-later", kT0);
  ASSERT_TRUE(next.ok()) << next.error();
  EXPECT_EQ(store_->recent_messages(Scope{"alice", "chat-0"}, 10)->back().text, "later");
}

TEST_F(MessageGroupCommit, ALoneAppendIsOneCommitAsBefore) {
  const std::uint64_t commits = sqlite_->commits();
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(store_->append_message(Scope{"alice", "chat"}, "user", "hello", "turn", kT0).ok());
  EXPECT_EQ(sqlite_->commits() - commits, 4u);
  EXPECT_EQ(store_->recent_messages(Scope{"alice", "chat"}, 10)->size(), 4u);
}

}  // namespace
}  // namespace sigil::store::testing
