// A token bucket: `per_second` tokens on average, up to `burst` at once. The one implementation behind every
// rate limit: the outbox's per channel (capabilities().rate) and the gateway's per user and per address.
//
// What it promises:
// - It starts full (burst tokens; a burst of 0 counts as 1) and refills continuously at per_second, never
//   past burst.
// - It keeps no clock: every call says what time it is, so each caller uses its own (a fake one in tests),
//   and a map of buckets costs two numbers each. Time that goes backwards adds nothing.
// - per_second <= 0 is unlimited: every take succeeds and wait() is zero.
// - Not thread-safe: whoever shares a bucket locks around it.
#pragma once

#include <chrono>

namespace sigil::deliver {

class TokenBucket {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  TokenBucket(double per_second, unsigned burst, time_point now);

  bool unlimited() const { return per_second_ <= 0; }
  // The tokens there at `now` (burst when unlimited).
  double tokens(time_point now);
  // Full at `now`: it would behave exactly as a new bucket, so a caller may forget it.
  bool full(time_point now) { return tokens(now) >= burst_; }
  // Takes a token if one is there at `now`; a failed take spends nothing.
  bool try_take(time_point now);
  // How long from `now` until a whole token is there; zero when one is.
  std::chrono::duration<double> wait(time_point now);

 private:
  void refill(time_point now);

  double per_second_;
  double burst_;
  double tokens_;
  time_point last_;
};

}  // namespace sigil::deliver
