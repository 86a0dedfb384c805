#include "server/rate_limiter.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace sigil::server {

RateLimiter::RateLimiter(double per_minute, unsigned burst, std::function<Clock::time_point()> now)
    : per_second_(per_minute > 0 ? per_minute / 60.0 : 0), burst_(burst), now_(std::move(now)) {}

double RateLimiter::take(const std::string& user) {
  if (per_second_ <= 0) return 0;
  const Clock::time_point now = now_();
  std::lock_guard lock(mu_);
  // Now and then forget the buckets that are full again: they would behave exactly like a new one.
  if (++takes_since_sweep_ >= 1024) {
    takes_since_sweep_ = 0;
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      it = it->second.full(now) ? buckets_.erase(it) : std::next(it);
    }
  }
  deliver::TokenBucket& bucket = buckets_.try_emplace(user, per_second_, burst_, now).first->second;
  if (bucket.try_take(now)) return 0;
  return std::max(1e-3, bucket.wait(now).count());
}

std::size_t RateLimiter::tracked() const {
  std::lock_guard lock(mu_);
  return buckets_.size();
}

}  // namespace sigil::server
