#include "sigil/deliver/token_bucket.h"

#include <algorithm>

namespace sigil::deliver {

TokenBucket::TokenBucket(double per_second, unsigned burst, time_point now)
    : per_second_(per_second), burst_(std::max(1U, burst)), tokens_(burst_), last_(now) {}

void TokenBucket::refill(time_point now) {
  if (now <= last_) return;
  const double seconds = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + seconds * per_second_);
  last_ = now;
}

double TokenBucket::tokens(time_point now) {
  if (unlimited()) return burst_;
  refill(now);
  return tokens_;
}

bool TokenBucket::try_take(time_point now) {
  if (unlimited()) return true;
  refill(now);
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

std::chrono::duration<double> TokenBucket::wait(time_point now) {
  if (unlimited()) return {};
  refill(now);
  return std::chrono::duration<double>(tokens_ >= 1.0 ? 0.0 : (1.0 - tokens_) / per_second_);
}

}  // namespace sigil::deliver
