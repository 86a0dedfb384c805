// A token bucket per user (deliver/token_bucket.h): how many messages a user may start per minute, with a
// burst.
//
// What it promises:
// - take(user) spends one token when there is one (returns 0) or reports how many seconds until the next
//   token (> 0) without spending anything. Buckets start full (`burst` tokens) and refill at
//   per_minute / 60 tokens a second, up to `burst`.
// - per_minute == 0 means unlimited: take() always returns 0.
// - Thread-safe. Memory stays bounded by the users active in the last refill period: buckets that are full
//   again are dropped now and then (a full bucket and a missing one behave the same).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "sigil/deliver/token_bucket.h"

namespace sigil::server {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  RateLimiter(double per_minute, unsigned burst, std::function<Clock::time_point()> now = Clock::now);

  // 0: allowed (one token spent). Otherwise the seconds to wait before a token is there.
  double take(const std::string& user);

  // Buckets currently kept (for tests).
  std::size_t tracked() const;

 private:
  const double per_second_;
  const unsigned burst_;
  std::function<Clock::time_point()> now_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, deliver::TokenBucket> buckets_;
  std::size_t takes_since_sweep_ = 0;
};

}  // namespace sigil::server
