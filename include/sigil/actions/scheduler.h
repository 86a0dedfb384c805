// The durable scheduler: fires due scheduled tasks (scheduleTask) as new turns, through a callback.
//
// What it promises:
// - Durable: its only state is the Store. A task is fired (fire() called) and then marked fired
//   (Store::mark_fired) only when fire() returned true; false (or an exception) leaves it pending, and it is
//   tried again at the next wake-up. So a task due while the process was down comes back from due_tasks()
//   once when a new Scheduler starts, and a crash between fire() and mark_fired() fires it again after the
//   restart (once the claim's lease ends, below) as the same turn (turn id "task:" + id), whose directives'
//   exactly-once keys make that harmless.
// - Claimed before it fires: one scheduler on a database fires a task, even when two processes share it by
//   mistake (the data-folder lock was removed). The claim is an exactly-once key in the task's
//   conversation (Store::once_begin), completed once the task is marked fired. A claim begun by another
//   Store instance and never completed (its process is firing it now, or died between claim and mark) is
//   left alone for claim_lease, then taken over: a crash costs a delay of the lease, never the task.
// - Fire order: by due time, soonest first, across all users; batch_limit tasks per store query (plus as
//   many as were refused in this sweep, so refused tasks never hide later ones). Within one run_due(), a
//   task is offered to fire() at most once.
// - run_due() works without the thread (`sigil exec --now` calls it once). It and the thread's sweeps
//   never overlap: one fire() at a time per Scheduler.
// - The thread (start()) sweeps at once, then sleeps until the earliest pending task is due or the poll
//   interval ends, whichever comes first; notify() (call it after adding a task:
//   ScheduleConfig::on_scheduled) wakes it early to look again. No busy waiting: a task that keeps failing is
//   retried at the poll interval, not in a loop.
// - fire() runs on the scheduler's thread (or run_due()'s caller): hand the turn off (queue it) rather than
//   running a long model call inside it; stop() waits for a fire() in progress to return.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "sigil/store/store.h"

namespace sigil::actions {

struct SchedulerOptions {
  // The clock (tests pass a fake one). The thread converts "due in N ms by this clock" into a real sleep.
  std::function<store::TimePoint()> now = [] { return store::Clock::now(); };
  // The longest the thread sleeps without looking at the store (catches tasks added by other processes
  // sharing the database, and retries failed fires).
  std::chrono::milliseconds poll_interval{std::chrono::seconds(30)};
  // Tasks per Store::due_tasks() query.
  std::size_t batch_limit = 100;
  // How long another instance's unfinished claim holds a task (see "Claimed" above).
  std::chrono::milliseconds claim_lease{std::chrono::seconds(60)};
};

class Scheduler {
 public:
  // Starts the turn for a due task: true when it was started (or queued durably enough that the task may
  // be marked fired), false to try again later.
  using FireFn = std::function<bool(const store::ScheduledTask& task, const std::string& turn_id)>;

  Scheduler(store::Store& store, FireFn fire, SchedulerOptions options = {});
  // stop().
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // The turn id of a task's turn: "task:" + id.
  static std::string turn_id(const store::ScheduledTask& task);

  // Fires everything due now, once each: fire(task, turn_id(task)) in due order, then mark_fired() when
  // it returned true. Returns the tasks fire() accepted.
  std::vector<store::ScheduledTask> run_due();

  // Starts the thread (no-op when running).
  void start();
  // Stops and joins the thread (no-op when not running). start() may be called again afterwards.
  void stop();
  // Wakes the thread to look at the store again (e.g. a task was just added). Cheap; any thread.
  void notify();
  bool running() const;

 private:
  struct Sweep {
    std::vector<store::ScheduledTask> fired;
    std::size_t refused = 0;  // due tasks left pending (fire() said no, or marking failed)
    store::TimePoint as_of;   // the clock at the last due_tasks() query: every task due by then was offered
  };
  Sweep sweep();
  // Whether this scheduler may fire `task` now (it claimed it, or takes over a stale claim).
  bool claim(const store::ScheduledTask& task);
  // The claim's key in the task's conversation.
  static std::string claim_key(const store::ScheduledTask& task);
  void loop(std::stop_token stop);
  // When the thread should next look: the earliest task due after now within one poll interval, or
  // now + poll interval. Tasks the sweep left pending (due by swept.as_of) do not count.
  store::TimePoint next_wake(const Sweep& swept, store::TimePoint now);

  store::Store& store_;
  FireFn fire_;
  SchedulerOptions options_;

  std::mutex run_mu_;      // one sweep at a time (thread and run_due() callers)
  mutable std::mutex mu_;  // guards notified_ and thread_
  std::condition_variable_any cv_;
  bool notified_ = false;
  std::jthread thread_;
};

}  // namespace sigil::actions
