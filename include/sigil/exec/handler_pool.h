// The threads every turn's executor runs its handlers on, shared by the whole process (a gateway makes one),
// so a turn with directives costs queue entries, not threads of its own.
//
// Promises:
// - post(job) runs job once on one of the pool's threads, in post order among jobs that wait. Threads start
//   on demand: one is added only while none is idle, up to max_threads (a blocking handler, a web fetch,
//   takes a thread for as long as it waits, so the cap is generous).
// - call_at(when, fn) runs fn on the pool's timer thread at `when` (soon after), unless cancel(id) came
//   first; cancel() after it ran does nothing. The timer thread starts with the first call_at().
// - The destructor runs no job or timer that has not started and waits for those running. It must not run
//   on one of the pool's own threads (an executor never owns its pool: the Executor object does).
// Jobs and timer callbacks must not throw.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace sigil::exec {

class HandlerPool {
 public:
  using Clock = std::chrono::steady_clock;
  using TimerId = std::uint64_t;

  explicit HandlerPool(unsigned max_threads = 64);
  ~HandlerPool();
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  void post(std::function<void()> job);
  TimerId call_at(Clock::time_point when, std::function<void()> fn);
  void cancel(TimerId id);

  // Threads started so far (not counting the timer's).
  std::size_t threads() const;

 private:
  void work();
  void time();

  mutable std::mutex mu_;
  std::condition_variable work_cv_, timer_cv_;
  std::deque<std::function<void()>> jobs_;
  using Timers = std::multimap<Clock::time_point, std::pair<TimerId, std::function<void()>>>;
  Timers timers_;
  std::unordered_map<TimerId, Timers::iterator> timer_ids_;
  TimerId next_timer_ = 1;
  const unsigned max_threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::thread timer_;
};

}  // namespace sigil::exec
