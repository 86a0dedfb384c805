// A sleep until a deadline that another thread can cut short: the replay model's timer thread sleeps in
// it between tokens. Private to src/model/replay/.
//
// Why not a condition variable: glibc's pthread_cond_wait takes its mutex back marked "contended", so the
// next unlock makes a futex wake call although nobody waits. The timer thread sleeps once per token, so
// that was a second system call per token (perf on sigil_load: two futex calls per token from the timer
// thread). Here, on Linux, a sleep is one futex wait, and only wake() makes another call.
//
// What it promises: sleep_until(seen, due) returns at `due` at the latest, and at once (or soon after) when
// wake() was called after ticket() returned `seen`; it may also return early for no reason (the caller
// looks at its state again, as after a spurious condition-variable wake-up).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

namespace sigil::model::replay {

class WakeableSleep {
 public:
  using Clock = std::chrono::steady_clock;

  // Taken by the sleeper before its last look at what it waits for (under its own lock), then passed to
  // sleep_until: a wake() in between is not lost.
  std::uint32_t ticket() const noexcept { return word_.load(std::memory_order_acquire); }
  // Sleeps until `due` (none: until woken), or not at all when wake() came after ticket() gave `seen`.
  void sleep_until(std::uint32_t seen, std::optional<Clock::time_point> due);
  // Any thread: ends the sleep of a ticket taken before this call. One system call.
  void wake() noexcept;

 private:
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace sigil::model::replay
