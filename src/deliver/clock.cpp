#include "sigil/deliver/clock.h"

#include <algorithm>
#include <thread>

namespace sigil::deliver {

Clock::~Clock() = default;

Clock::time_point SteadyClock::now() { return std::chrono::steady_clock::now(); }

void SteadyClock::sleep_until(time_point t) { std::this_thread::sleep_until(t); }

SteadyClock& SteadyClock::instance() {
  static SteadyClock clock;
  return clock;
}

TokenBucket::TokenBucket(double per_second, unsigned burst, Clock& clock)
    : per_second_(per_second),
      burst_(std::max(1U, burst)),
      tokens_(burst_),
      clock_(clock),
      last_(clock.now()) {}

void TokenBucket::refill() {
  const auto now = clock_.now();
  if (now <= last_) return;
  const double seconds = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + seconds * per_second_);
  last_ = now;
}

double TokenBucket::tokens() {
  if (unlimited()) return burst_;
  refill();
  return tokens_;
}

bool TokenBucket::try_take() {
  if (unlimited()) return true;
  refill();
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

Clock::time_point::duration TokenBucket::take() {
  if (unlimited()) return {};
  refill();
  Clock::time_point::duration slept{};
  while (tokens_ < 1.0) {
    const auto need = std::chrono::duration<double>((1.0 - tokens_) / per_second_);
    // Round up so the refill after waking reaches a whole token.
    const auto wait = std::chrono::ceil<Clock::time_point::duration>(need);
    const auto before = clock_.now();
    clock_.sleep_until(before + wait);
    slept += clock_.now() - before;
    refill();
  }
  tokens_ -= 1.0;
  return slept;
}

}  // namespace sigil::deliver
