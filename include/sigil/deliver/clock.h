// Time for the outbox's rate limits, injectable so tests never sleep: a fake clock's sleep_until() just
// moves its time forward.
#pragma once

#include <chrono>

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

// A token bucket over a Clock (RateLimit: per_second, burst). Not thread-safe: one per outbox.
class TokenBucket {
 public:
  TokenBucket(double per_second, unsigned burst, Clock& clock);
  // Takes a token if one is there now.
  bool try_take();
  // Takes a token, sleeping (on the clock) until one is there. Returns the time slept.
  Clock::time_point::duration take();
  double tokens();  // refilled to now
  bool unlimited() const { return per_second_ <= 0; }

 private:
  void refill();
  double per_second_;
  double burst_;
  double tokens_;
  Clock& clock_;
  Clock::time_point last_;
};

}  // namespace sigil::deliver
