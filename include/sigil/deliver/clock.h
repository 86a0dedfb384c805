// Time for the outbox's rate limits, injectable so tests never sleep: a fake clock's sleep_until() just
// moves its time forward.
#pragma once

#include <chrono>

#include "sigil/deliver/token_bucket.h"

namespace sigil::deliver {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;
  virtual ~Clock();
  virtual time_point now() = 0;
  // Returns once now() >= t.
  virtual void sleep_until(time_point t) = 0;
};

// std::chrono::steady_clock and std::this_thread::sleep_until.
class SteadyClock final : public Clock {
 public:
  time_point now() override;
  void sleep_until(time_point t) override;
  // One shared instance (it has no state).
  static SteadyClock& instance();
};

// Takes a token from `bucket` (token_bucket.h), sleeping on `clock` until one is there. Returns the time
// slept: zero when a token was there, and always when the bucket is unlimited.
Clock::duration take_waiting(TokenBucket& bucket, Clock& clock);

}  // namespace sigil::deliver
