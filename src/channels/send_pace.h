// The pace a platform sets on a bot, kept before a call is made instead of learned from a 429 after it:
// bot-wide (Telegram: about 30 messages a second across all chats; Discord: 50 requests a second) and per
// chat where the limit outlives one reply (Telegram: 20 messages a minute in a group). The outbox's own
// per-reply spacing is deliver::ChannelCapabilities::rate.
//
// What it promises:
// - take(pause, key) returns once a token of `key`'s bucket was taken: at most `burst` calls at once, then
//   `per_second` on average for each key, however many threads call it. It pauses with the caller's own
//   pause, so a stopping client is not held up: a pause that reports a stop makes take() return false.
// - Memory stays bounded: a bucket that is full again is forgotten when many keys are kept (a new bucket
//   starts full, so forgetting it changes nothing).
// - waits(): how many takes had to pause (the clients' stats report it; tests count it).
// - The time comes from an injectable deliver::Clock, so a test paces without sleeping.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "sigil/deliver/clock.h"
#include "sigil/deliver/token_bucket.h"

namespace sigil::channels {

class SendPace {
 public:
  // Waits how long it is given; false when the caller is stopping.
  using Pause = std::function<bool(std::chrono::milliseconds)>;

  SendPace(double per_second, unsigned burst, deliver::Clock& clock = deliver::SteadyClock::instance());

  bool take(const Pause& pause, std::int64_t key = 0);
  std::uint64_t waits() const;
  std::size_t keys() const;

 private:
  deliver::TokenBucket& bucket_of(std::int64_t key, deliver::Clock::time_point now);

  double per_second_;
  unsigned burst_;
  deliver::Clock& clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::int64_t, deliver::TokenBucket> buckets_;
  std::uint64_t waits_ = 0;
};

}  // namespace sigil::channels
