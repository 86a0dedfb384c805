// The durable scheduler: fires once, survives restarts (a new Store and Scheduler on the same SQLite file),
// retries refused fires, and its thread sleeps until the next task instead of spinning.
#include "sigil/actions/scheduler.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/temp_dir.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::actions {
namespace {

using namespace std::chrono_literals;

const store::TimePoint kT0{std::chrono::seconds(1'700'000'000)};
const store::Scope kAlice{"alice", "conv-1", store::MemoryScope::per_user};
const store::Scope kBob{"bob", "conv-9", store::MemoryScope::per_user};

using TempDir = sigil::test::TempDir;

std::unique_ptr<store::Store> open_store(const std::string& path = ":memory:") {
  auto opened = store::sqlite::SqliteStore::open(path);
  if (!opened.ok()) throw std::runtime_error(opened.error());
  return std::move(opened).value();
}

std::string add(store::Store& s, const store::Scope& scope, const std::string& message,
                store::TimePoint due) {
  auto id = s.add_task(scope, "", message, due, kT0);
  EXPECT_TRUE(id.ok()) << id.error();
  return id.ok() ? *id : std::string();
}

// What fire() saw, thread-safe.
struct Fired {
  std::mutex mu;
  std::vector<std::string> turns;     // turn ids
  std::vector<std::string> messages;  // task messages
  std::size_t size() {
    std::lock_guard lock(mu);
    return turns.size();
  }
  Scheduler::FireFn accept() {
    return [this](const store::ScheduledTask& t, const std::string& turn) {
      std::lock_guard lock(mu);
      turns.push_back(turn);
      messages.push_back(t.message);
      return true;
    };
  }
};

// A clock tests move by hand.
struct FakeClock {
  std::atomic<store::TimePoint> now{kT0};
  std::atomic<int> reads{0};
  std::function<store::TimePoint()> fn() {
    return [this] {
      ++reads;
      return now.load();
    };
  }
};

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 10s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

TEST(Scheduler, FiresADueTaskOnceWithATurnIdFromTheTaskId) {
  auto store = open_store();
  const std::string id = add(*store, kAlice, "Call mom", kT0 + 1min);
  FakeClock clock;
  Fired fired;
  SchedulerOptions options;
  options.now = clock.fn();
  Scheduler s(*store, fired.accept(), options);
  EXPECT_TRUE(s.run_due().empty());  // not due yet
  clock.now = kT0 + 1min;
  auto first = s.run_due();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].id, id);
  EXPECT_EQ(first[0].scope.user_id, "alice");
  EXPECT_TRUE(s.run_due().empty());  // once
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired.turns[0], "task:" + id);
  EXPECT_EQ(fired.messages[0], "Call mom");
  EXPECT_EQ(Scheduler::turn_id(first[0]), "task:" + id);
  auto pending = store->list_tasks(kAlice);
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
}

TEST(Scheduler, FiresInDueOrderAcrossUsersAndBatches) {
  auto store = open_store();
  add(*store, kAlice, "third", kT0 + 3s);
  add(*store, kBob, "first", kT0 + 1s);
  add(*store, kAlice, "second", kT0 + 2s);
  add(*store, kBob, "fourth", kT0 + 4s);
  add(*store, kAlice, "fifth", kT0 + 5s);
  add(*store, kAlice, "later", kT0 + 1h);
  Fired fired;
  SchedulerOptions options;
  options.now = [] { return kT0 + 1min; };
  options.batch_limit = 2;  // three queries in one run_due()
  Scheduler s(*store, fired.accept(), options);
  EXPECT_EQ(s.run_due().size(), 5u);
  EXPECT_EQ(fired.messages, (std::vector<std::string>{"first", "second", "third", "fourth", "fifth"}));
}

TEST(Scheduler, RefusedFireIsRetriedOnTheNextRunAndDoesNotHideOthers) {
  auto store = open_store();
  add(*store, kAlice, "flaky", kT0 + 1s);
  add(*store, kAlice, "throws", kT0 + 2s);
  add(*store, kBob, "fine", kT0 + 3s);
  int refusals_left = 1;
  std::vector<std::string> calls;
  SchedulerOptions options;
  options.now = [] { return kT0 + 1min; };
  options.batch_limit = 1;  // the refused ones sit at the head of every query
  Scheduler s(
      *store,
      [&](const store::ScheduledTask& t, const std::string&) {
        calls.push_back(t.message);
        if (t.message == "throws") throw std::runtime_error("boom");
        if (t.message == "flaky" && refusals_left > 0) {
          --refusals_left;
          return false;
        }
        return true;
      },
      options);
  auto first = s.run_due();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].message, "fine");
  // Each offered once per run.
  EXPECT_EQ(calls, (std::vector<std::string>{"flaky", "throws", "fine"}));
  auto second = s.run_due();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].message, "flaky");
  auto pending = store->list_tasks(kAlice);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].message, "throws");  // still pending: it throws every time
}

TEST(Scheduler, ATaskMissedWhileStoppedFiresOnceOnStart) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  std::string id;
  {
    auto store = open_store(path);
    id = add(*store, kAlice, "missed", kT0 + 1h);
    Fired fired;
    SchedulerOptions options;
    options.now = [] { return kT0; };
    Scheduler s(*store, fired.accept(), options);
    s.start();
    EXPECT_TRUE(s.running());
    s.stop();  // the process goes down before the task is due
    EXPECT_FALSE(s.running());
    EXPECT_EQ(fired.size(), 0u);
  }
  // A new process, two hours later: a new Store and a new Scheduler on the same file.
  {
    auto store = open_store(path);
    Fired fired;
    SchedulerOptions options;
    options.now = [] { return kT0 + 2h; };
    options.poll_interval = 1h;
    Scheduler s(*store, fired.accept(), options);
    s.start();
    ASSERT_TRUE(eventually([&] { return fired.size() == 1; }));
    s.stop();
    EXPECT_EQ(fired.size(), 1u);
    EXPECT_EQ(fired.turns[0], "task:" + id);
  }
  // And never again after another restart.
  {
    auto store = open_store(path);
    Fired fired;
    SchedulerOptions options;
    options.now = [] { return kT0 + 3h; };
    Scheduler s(*store, fired.accept(), options);
    EXPECT_TRUE(s.run_due().empty());
    EXPECT_EQ(fired.size(), 0u);
  }
}

TEST(Scheduler, ThreadSleepsUntilTheNextTaskWithoutSpinning) {
  auto store = open_store();
  Fired fired;
  std::atomic<int> reads{0};
  SchedulerOptions options;
  options.now = [&] {
    ++reads;
    return store::Clock::now();
  };
  options.poll_interval = 1h;  // it must wake for the task, not the poll
  const auto due = store::Clock::now() + 50ms;
  add(*store, kAlice, "soon", due);
  Scheduler s(*store, fired.accept(), options);
  s.start();
  ASSERT_TRUE(eventually([&] { return fired.size() == 1; }));
  EXPECT_GE(store::Clock::now(), due);
  // A few clock reads per wake-up; spinning for 50 ms would be thousands.
  EXPECT_LT(reads.load(), 50);
  s.stop();
}

TEST(Scheduler, NotifyWakesTheThreadForANewTask) {
  auto store = open_store();
  FakeClock clock;
  Fired fired;
  SchedulerOptions options;
  options.now = clock.fn();
  options.poll_interval = 1h;  // without notify() it would sleep an hour
  Scheduler s(*store, fired.accept(), options);
  s.start();
  ASSERT_TRUE(eventually([&] { return clock.reads.load() > 0; }));  // the first sweep ran (nothing due)
  add(*store, kAlice, "now", kT0);
  s.notify();
  ASSERT_TRUE(eventually([&] { return fired.size() == 1; }));
  // A task due later by the fake clock fires once the clock gets there and the thread is told.
  add(*store, kBob, "later", kT0 + 10min);
  s.notify();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(fired.size(), 1u);
  clock.now = kT0 + 10min;
  s.notify();
  ASSERT_TRUE(eventually([&] { return fired.size() == 2; }));
  EXPECT_EQ(fired.messages, (std::vector<std::string>{"now", "later"}));
}

TEST(Scheduler, StopIsPromptAndRestartable) {
  auto store = open_store();
  Fired fired;
  SchedulerOptions options;
  options.now = [] { return kT0; };
  options.poll_interval = 1h;
  Scheduler s(*store, fired.accept(), options);
  s.start();
  s.start();  // no-op
  const auto before = std::chrono::steady_clock::now();
  s.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, 5s);
  s.stop();  // no-op
  add(*store, kAlice, "after restart", kT0);
  s.start();
  ASSERT_TRUE(eventually([&] { return fired.size() == 1; }));
  // The destructor stops the thread.
}

// Two processes on one database by mistake (the data-folder lock removed): the second sweeps while the
// first is between firing and marking, and must not fire the task again.
TEST(Scheduler, TwoInstancesOnOneDatabaseFireATaskOnce) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  auto store_a = open_store(path);
  auto store_b = open_store(path);
  const std::string id = add(*store_a, kAlice, "water the plants", kT0);
  SchedulerOptions options;
  options.now = [] { return kT0 + 1s; };
  Fired fired_b;
  Scheduler b(*store_b, fired_b.accept(), options);
  std::vector<store::ScheduledTask> b_during;
  Fired fired_a;
  Scheduler a(
      *store_a,
      [&](const store::ScheduledTask& t, const std::string& turn) {
        b_during = b.run_due();  // B sweeps while A fires: A's claim is fresh and not yet completed
        return fired_a.accept()(t, turn);
      },
      options);
  EXPECT_EQ(a.run_due().size(), 1u);
  EXPECT_TRUE(b_during.empty());
  EXPECT_TRUE(b.run_due().empty());  // marked and claimed: never again
  EXPECT_EQ(fired_a.size(), 1u);
  EXPECT_EQ(fired_b.size(), 0u);
}

// A process that claimed a task and died before marking it: after the claim's lease another instance
// fires it, once, as the same turn; before the lease it waits.
TEST(Scheduler, AnUnfinishedClaimIsTakenOverAfterTheLease) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  std::string id;
  {
    auto store = open_store(path);
    id = add(*store, kAlice, "remind me", kT0);
    SchedulerOptions options;
    options.now = [] { return kT0; };
    Scheduler s(
        *store,
        [](const store::ScheduledTask&, const std::string&) -> bool { throw std::runtime_error("died"); },
        options);
    EXPECT_TRUE(s.run_due().empty());  // claimed, never fired nor marked: the "process" ends here
  }
  auto store = open_store(path);
  FakeClock clock;
  clock.now = kT0 + 30s;
  Fired fired;
  SchedulerOptions options;
  options.now = clock.fn();
  options.claim_lease = 60s;
  Scheduler s(*store, fired.accept(), options);
  EXPECT_TRUE(s.run_due().empty());  // within the lease: the claimant may still be firing it
  clock.now = kT0 + 61s;
  ASSERT_EQ(s.run_due().size(), 1u);
  EXPECT_TRUE(s.run_due().empty());
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired.turns[0], "task:" + id);
}

}  // namespace
}  // namespace sigil::actions
