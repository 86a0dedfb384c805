// The durable scheduler (see scheduler.h).
#include "sigil/actions/scheduler.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace sigil::actions {

Scheduler::Scheduler(store::Store& store, FireFn fire, SchedulerOptions options)
    : store_(store), fire_(std::move(fire)), options_(std::move(options)) {
  if (options_.batch_limit == 0) options_.batch_limit = 1;
  if (options_.poll_interval <= std::chrono::milliseconds::zero())
    options_.poll_interval = std::chrono::seconds(1);
}

Scheduler::~Scheduler() { stop(); }

std::string Scheduler::turn_id(const store::ScheduledTask& task) { return "task:" + task.id; }

std::vector<store::ScheduledTask> Scheduler::run_due() { return sweep().fired; }

std::string Scheduler::claim_key(const store::ScheduledTask& task) {
  // "scheduled-task" is no action name: the key never meets a directive's.
  return store::once_key(task.scope.conversation_id, turn_id(task), 0, "scheduled-task", task.id);
}

bool Scheduler::claim(const store::ScheduledTask& task) {
  const store::TimePoint now = options_.now();
  auto begun = store_.once_begin(task.scope, claim_key(task), now);
  if (!begun) return false;  // the store failed: try again at the next wake-up
  switch (begun->state) {
    case store::OnceState::fresh:
      return true;
    case store::OnceState::running:
      // Claimed by this instance in an earlier sweep whose fire() refused or whose mark failed: sweeps never
      // overlap, so nobody else is firing it.
      return true;
    case store::OnceState::in_doubt:
      return now - begun->begun_at >= options_.claim_lease;
    case store::OnceState::completed:
      return false;  // fired and marked by another instance since due_tasks() listed it
  }
  return false;
}

Scheduler::Sweep Scheduler::sweep() {
  std::lock_guard run_lock(run_mu_);
  Sweep out;
  // Tasks offered once in this sweep. A refused one stays due and keeps its place at the head of
  // due_tasks() (soonest first), so each query asks for that many more: refused tasks never hide the rest.
  std::set<std::tuple<std::string, std::string, std::string>> tried;
  for (;;) {
    const std::size_t limit = options_.batch_limit + out.refused;
    out.as_of = options_.now();
    auto due = store_.due_tasks(out.as_of, limit);
    if (!due) break;  // the store failed: the next wake-up tries again
    bool any_new = false;
    for (const store::ScheduledTask& task : *due) {
      if (!tried.emplace(task.scope.user_id, task.scope.conversation_id, task.id).second) continue;
      any_new = true;
      if (!claim(task)) {
        ++out.refused;
        continue;
      }
      bool accepted = false;
      try {
        accepted = fire_(task, turn_id(task));
      } catch (...) {
        accepted = false;  // a throwing callback must not end the thread; retried later like a refusal
      }
      // Marked after firing: a crash in between fires it again after a restart (once the claim's lease
      // ends), as the same turn. A failed mark leaves it pending the same way; it is still reported as
      // fired (fire() took it).
      if (accepted && store_.mark_fired(task.scope, task.id, options_.now()).ok()) {
        // A failed completion only leaves the claim unfinished; the task is marked and never listed again.
        (void)store_.once_complete(task.scope, claim_key(task), R"({"fired":true})", options_.now());
        out.fired.push_back(task);
      } else {
        if (accepted) out.fired.push_back(task);
        ++out.refused;
      }
    }
    if (due->size() < limit || !any_new) break;
  }
  return out;
}

store::TimePoint Scheduler::next_wake(const Sweep& swept, store::TimePoint now) {
  const store::TimePoint horizon = now + options_.poll_interval;
  auto upcoming = store_.due_tasks(horizon, options_.batch_limit + swept.refused);
  if (!upcoming) return horizon;
  for (const store::ScheduledTask& task : *upcoming) {
    // Pending tasks due by the sweep's time were offered and refused: they wait for the poll interval. One
    // that fell due since the sweep gives a wake time already passed: the thread sweeps again at once.
    if (task.due_at > swept.as_of) return std::min(task.due_at, horizon);
  }
  return horizon;
}

void Scheduler::loop(std::stop_token stop) {
  while (!stop.stop_requested()) {
    const Sweep swept = sweep();
    const store::TimePoint now = options_.now();
    const store::TimePoint wake = next_wake(swept, now);
    // Sleep by the steady clock for as long as the scheduler's clock says is left, so a fake clock in tests
    // and wall-clock jumps both behave: notify() re-reads the store either way.
    auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(wake - now),
                         std::chrono::milliseconds::zero()) +
                std::chrono::milliseconds(1);
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, stop, left, [this] { return notified_; });
    notified_ = false;
  }
}

void Scheduler::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  thread_ = std::jthread([this](std::stop_token stop) { loop(std::move(stop)); });
}

void Scheduler::stop() {
  std::jthread thread;
  {
    std::lock_guard lock(mu_);
    thread = std::move(thread_);
  }
  if (!thread.joinable()) return;
  thread.request_stop();  // wakes the condition variable wait (it takes the stop token)
  thread.join();
}

void Scheduler::notify() {
  {
    std::lock_guard lock(mu_);
    notified_ = true;
  }
  cv_.notify_all();
}

bool Scheduler::running() const {
  std::lock_guard lock(mu_);
  return thread_.joinable();
}

}  // namespace sigil::actions
