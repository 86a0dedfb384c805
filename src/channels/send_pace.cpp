#include "channels/send_pace.h"

#include <cmath>
#include <iterator>

namespace sigil::channels {

namespace {
constexpr std::size_t kForgetAbove = 1024;  // keys kept before full buckets are forgotten
}

SendPace::SendPace(double per_second, unsigned burst, deliver::Clock& clock)
    : per_second_(per_second), burst_(burst), clock_(clock) {}

deliver::TokenBucket& SendPace::bucket_of(std::int64_t key, deliver::Clock::time_point now) {
  if (buckets_.size() >= kForgetAbove && !buckets_.contains(key))
    for (auto it = buckets_.begin(); it != buckets_.end();)
      it = it->second.full(now) ? buckets_.erase(it) : std::next(it);
  return buckets_.try_emplace(key, per_second_, burst_, now).first->second;
}

bool SendPace::take(const Pause& pause, std::int64_t key) {
  if (per_second_ <= 0) return true;
  bool waited = false;
  for (;;) {
    std::chrono::milliseconds wait{0};
    {
      std::lock_guard lock(mu_);
      const auto now = clock_.now();
      deliver::TokenBucket& bucket = bucket_of(key, now);
      if (bucket.try_take(now)) {
        if (waited) ++waits_;
        return true;
      }
      // Rounded up, so the pause never ends just before the token is whole.
      wait =
          std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(bucket.wait(now).count() * 1000.0)));
    }
    // Not under the lock: other callers may take the tokens that come meanwhile, and this one then waits
    // again (a pace, not a queue).
    waited = true;
    if (!pause(wait)) return false;
  }
}

std::uint64_t SendPace::waits() const {
  std::lock_guard lock(mu_);
  return waits_;
}

std::size_t SendPace::keys() const {
  std::lock_guard lock(mu_);
  return buckets_.size();
}

}  // namespace sigil::channels
