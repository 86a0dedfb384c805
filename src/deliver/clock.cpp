#include "sigil/deliver/clock.h"

#include <thread>

namespace sigil::deliver {

Clock::~Clock() = default;

Clock::time_point SteadyClock::now() { return std::chrono::steady_clock::now(); }

void SteadyClock::sleep_until(time_point t) { std::this_thread::sleep_until(t); }

SteadyClock& SteadyClock::instance() {
  static SteadyClock clock;
  return clock;
}

Clock::duration take_waiting(TokenBucket& bucket, Clock& clock) {
  Clock::duration slept{};
  while (!bucket.try_take(clock.now())) {
    // Round up so the refill after waking reaches a whole token.
    const auto wait = std::chrono::ceil<Clock::duration>(bucket.wait(clock.now()));
    const auto before = clock.now();
    clock.sleep_until(before + wait);
    slept += clock.now() - before;
  }
  return slept;
}

}  // namespace sigil::deliver
