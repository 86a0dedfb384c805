#include "server/rate_limiter.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace sigil::server {

RateLimiter::RateLimiter(double per_minute, unsigned burst, std::function<Clock::time_point()> now)
    : per_second_(per_minute > 0 ? per_minute / 60.0 : 0),
      burst_(static_cast<double>(std::max(1u, burst))),
      now_(std::move(now)) {}

void RateLimiter::refill(Bucket& bucket, Clock::time_point now) const {
  const double elapsed = std::chrono::duration<double>(now - bucket.at).count();
  if (elapsed > 0) bucket.tokens = std::min(burst_, bucket.tokens + elapsed * per_second_);
  bucket.at = now;
}

double RateLimiter::take(const std::string& user) {
  if (per_second_ <= 0) return 0;
  const Clock::time_point now = now_();
  std::lock_guard lock(mu_);
  // Now and then forget the buckets that are full again: they would behave exactly like a new one.
  if (++takes_since_sweep_ >= 1024) {
    takes_since_sweep_ = 0;
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      refill(it->second, now);
      it = it->second.tokens >= burst_ ? buckets_.erase(it) : std::next(it);
    }
  }
  auto [it, fresh] = buckets_.try_emplace(user, Bucket{burst_, now});
  Bucket& bucket = it->second;
  if (!fresh) refill(bucket, now);
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return 0;
  }
  return std::max(1e-3, (1 - bucket.tokens) / per_second_);
}

std::size_t RateLimiter::tracked() const {
  std::lock_guard lock(mu_);
  return buckets_.size();
}

}  // namespace sigil::server
