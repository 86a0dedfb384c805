#include "model/replay/wakeable_sleep.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>
#else
#include <condition_variable>
#include <mutex>
#endif

namespace sigil::model::replay {

#if defined(__linux__)

// The futex word is word_ itself: FUTEX_WAIT returns at once when it no longer holds `seen`. The deadline
// is absolute on CLOCK_MONOTONIC (FUTEX_WAIT_BITSET), which is what steady_clock reads on Linux.
void WakeableSleep::sleep_until(std::uint32_t seen, std::optional<Clock::time_point> due) {
  timespec at{};
  if (due) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(due->time_since_epoch()).count();
    if (ns <= 0) return;
    at.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    at.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  }
  (void)::syscall(SYS_futex, &word_, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, seen, due ? &at : nullptr,
                  nullptr, FUTEX_BITSET_MATCH_ANY);
}

void WakeableSleep::wake() noexcept {
  word_.fetch_add(1, std::memory_order_release);
  (void)::syscall(SYS_futex, &word_, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

#else

namespace {
// Elsewhere, one condition variable for every sleeper (there is one timer thread per replay client).
std::mutex g_mutex;
std::condition_variable g_wake;
}  // namespace

void WakeableSleep::sleep_until(std::uint32_t seen, std::optional<Clock::time_point> due) {
  std::unique_lock lock(g_mutex);
  const auto woken = [&] { return word_.load(std::memory_order_acquire) != seen; };
  if (due) {
    g_wake.wait_until(lock, *due, woken);
  } else {
    g_wake.wait(lock, woken);
  }
}

void WakeableSleep::wake() noexcept {
  {
    std::lock_guard lock(g_mutex);
    word_.fetch_add(1, std::memory_order_release);
  }
  g_wake.notify_all();
}

#endif

}  // namespace sigil::model::replay
