// The executor's group commit and quick handlers (spec 12.4): a burst of directives begins its keys in one
// transaction, each action still starts only once its own key is committed, and quick handlers run without
// a thread hand-off. Fsyncs are counted at the VFS, so undoing the group commit fails here.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../support/counting_vfs.h"
#include "../support/temp_dir.h"
#include "burst_turn.h"
#include "sigil/exec/canonical_json.h"
#include "sigil/exec/executor.h"
#include "sigil/exec/handler_pool.h"
#include "sigil/parse/parser.h"
#include "sigil/store/sqlite.h"

namespace sigil::exec {
namespace {

using namespace std::chrono_literals;

const TurnIds kIds{"alice", "conv-1", "turn-1"};
using test::kBurst;
using test::registry;

TurnReport run_burst(store::Store& store, const HandlerTable& handlers, ExecOptions options = {}) {
  return test::run_burst(store, handlers, kIds, test::burst_reply(), std::move(options));
}

// Whether another connection sees the key's begin committed (with synchronous=FULL: durable).
class LogReader {
 public:
  explicit LogReader(const std::string& path) {
    sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_prepare_v2(db_, "SELECT count(*) FROM once_log WHERE key = ?1", -1, &stmt_, nullptr);
  }
  ~LogReader() {
    sqlite3_finalize(stmt_);
    sqlite3_close_v2(db_);
  }
  bool committed(const std::string& key) {
    std::lock_guard lock(mu_);
    sqlite3_reset(stmt_);
    sqlite3_bind_text(stmt_, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    return sqlite3_step(stmt_) == SQLITE_ROW && sqlite3_column_int(stmt_, 0) == 1;
  }

 private:
  std::mutex mu_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string key_of(const Directive& d) {
  return store::once_key(kIds.conversation, kIds.turn, static_cast<std::uint32_t>(d.ordinal), d.action,
                         canonical_json(boost::json::value(d.args)));
}

// A store in a WAL file opened through the counting VFS, and a second connection to read its log.
class ExecGroupCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::sqlite::open(path_);
    ASSERT_TRUE(opened.ok()) << opened.error();
    store_ = std::move(opened).value();
    log_ = std::make_unique<LogReader>(path_);
  }
  test::TempDir dir_;
  const std::string path_ = dir_.file("sigil.db");
  test::CountingVfs vfs_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<LogReader> log_;
};

TEST_F(ExecGroupCommit, ABurstOfAHundredQuickDirectivesCostsAHandfulOfFsyncs) {
  store::Store& store = *store_;
  LogReader& log = *log_;
  test::CountingVfs& vfs = vfs_;
  std::atomic<int> ran{0}, begun_first{0};
  HandlerTable handlers;
  handlers.add("remember", [&](const Directive& d, ActionContext&) {
    ++ran;
    if (log.committed(key_of(d))) ++begun_first;  // 12.4: its own key is durable before it runs
    return HandlerResult::ok("ok");
  });
  handlers.set_quick("remember");

  const int before = vfs.syncs();
  TurnReport report = run_burst(store, handlers);
  const int syncs = vfs.syncs() - before;
  EXPECT_EQ(ran.load(), kBurst);
  EXPECT_EQ(begun_first.load(), kBurst);
  ASSERT_EQ(report.results.size(), static_cast<std::size_t>(kBurst));
  for (const ResultEntry& r : report.results) EXPECT_EQ(r.status, ResultStatus::Ok) << r.message;
  // One begin and one completion commit per burst (one fsync each with synchronous=FULL), plus at most a
  // checkpoint; one commit per key would be 200.
  EXPECT_GE(syncs, 2);
  EXPECT_LE(syncs, 6) << "the exactly-once log is no longer group-committed";

  // Every key is completed: the same turn again runs nothing.
  TurnReport again = run_burst(store, handlers);
  EXPECT_EQ(ran.load(), kBurst);
  for (const ResultEntry& r : again.results) EXPECT_EQ(r.status, ResultStatus::Duplicate);
}

TEST_F(ExecGroupCommit, KeysOfABurstBeginTogetherForHandlersOnThePoolToo) {
  LogReader& log = *log_;
  test::CountingVfs& vfs = vfs_;
  std::atomic<int> ran{0}, begun_first{0};
  HandlerTable handlers;  // not quick: each runs on a pool job and completes on its own
  handlers.add("remember", [&](const Directive& d, ActionContext&) {
    ++ran;
    if (log.committed(key_of(d))) ++begun_first;
    return HandlerResult::ok("ok");
  });
  const int before = vfs.syncs();
  run_burst(*store_, handlers);
  const int syncs = vfs.syncs() - before;
  EXPECT_EQ(ran.load(), kBurst);
  EXPECT_EQ(begun_first.load(), kBurst);
  // 100 completions (serial, one at a time) but the begins in one commit: well under 200.
  EXPECT_LE(syncs, kBurst + 6);
}

TEST(ExecQuick, InMemoryQuickHandlersRunOnTheDispatchingThreadWithoutAPool) {
  auto opened = store::sqlite::open(":memory:");
  ASSERT_TRUE(opened.ok()) << opened.error();
  const std::thread::id here = std::this_thread::get_id();
  std::atomic<int> elsewhere{0}, ran{0};
  HandlerTable handlers;
  handlers.add("remember", [&](const Directive&, ActionContext&) {
    ++ran;
    if (std::this_thread::get_id() != here) ++elsewhere;
    return HandlerResult::ok("ok");
  });
  handlers.set_quick("remember");
  auto pool = std::make_shared<HandlerPool>(4);
  ExecOptions options;
  options.pool = pool;
  run_burst(**opened, handlers, options);
  EXPECT_EQ(ran.load(), kBurst);
  EXPECT_EQ(elsewhere.load(), 0);
  EXPECT_EQ(pool->threads(), 0u);
}

TEST(ExecPool, OneSharedPoolServesManyTurnsWithoutThreadsOfTheirOwn) {
  auto opened = store::sqlite::open(":memory:");
  ASSERT_TRUE(opened.ok()) << opened.error();
  std::atomic<int> ran{0};
  HandlerTable handlers;
  handlers.add("remember", [&](const Directive&, ActionContext&) {
    ++ran;
    return HandlerResult::ok("ok");
  });
  auto pool = std::make_shared<HandlerPool>(2);
  for (int turn = 0; turn < 20; ++turn) {
    RecordingOutbox outbox;
    ExecOptions options;
    options.pool = pool;
    Executor ex(registry(), handlers, **opened, outbox, {"alice", "conv-1", "turn-" + std::to_string(turn)},
                options);
    parse::Parser parser(registry(), ex.sink(), {});
    parser.feed("a [REMEMBER:one] b [REMEMBER:two]");
    parser.finish();
    TurnReport report = ex.finish();
    for (const ResultEntry& r : report.results) EXPECT_EQ(r.status, ResultStatus::Ok) << r.message;
  }
  EXPECT_EQ(ran.load(), 40);
  EXPECT_LE(pool->threads(), 2u);
}

TEST(ExecPool, TimersFireInOrderAndCancelledOnesNever) {
  HandlerPool pool(1);
  std::mutex mu;
  std::vector<int> fired;
  const auto now = HandlerPool::Clock::now();
  auto record = [&](int i) {
    return [&, i] {
      std::lock_guard lock(mu);
      fired.push_back(i);
    };
  };
  pool.call_at(now + 30ms, record(3));
  const HandlerPool::TimerId cancelled = pool.call_at(now + 20ms, record(2));
  pool.call_at(now + 10ms, record(1));
  pool.cancel(cancelled);
  for (int i = 0; i < 1000; ++i) {
    {
      std::lock_guard lock(mu);
      if (fired.size() >= 2) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(20ms);  // time for a wrongly kept third
  std::lock_guard lock(mu);
  EXPECT_EQ(fired, (std::vector<int>{1, 3}));
}

}  // namespace
}  // namespace sigil::exec
