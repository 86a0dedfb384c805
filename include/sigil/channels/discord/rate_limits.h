// Discord's REST rate limits as bookkeeping (no I/O, no clock of its own: every call is given `now`), so
// requests wait before they would be refused instead of after.
//
// What it promises:
// - Routes are keyed as Discord keys its buckets: the method, the path with snowflakes other than the
//   major parameter (the channel id) replaced by "{id}", and the reaction emoji by "{emoji}"
//   (route_key()). Several routes may share one bucket: the X-RateLimit-Bucket hash an answer names joins
//   them (per major parameter), as Discord documents.
// - observe() reads an answer's X-RateLimit-Bucket, -Remaining and -Reset-After (seconds, a float); when
//   Remaining is 0, the route's next request waits until the reset. A 429 makes the route wait retry_after
//   (the JSON body's float, else the Retry-After header's seconds, else Reset-After); a 429 whose body says
//   "global": true (or X-RateLimit-Global) makes every route wait: the global limit.
// - wait_before() is how long a request on a route must wait now (zero: go); it never grows without an
//   answer that asked for it, and a reset in the past is forgotten.
// - Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "sigil/net/http_message.h"

namespace sigil::channels::discord {

using RateClock = std::chrono::steady_clock;

// "POST /channels/123/messages" -> itself; "PUT /channels/123/messages/456/reactions/%F0%9F%91%8D/@me" ->
// "PUT /channels/123/messages/{id}/reactions/{emoji}/@me". `path` has no query.
std::string route_key(std::string_view method, std::string_view path);

// What a 429 asked for: how long, and whether it is the global limit.
struct RateLimited {
  std::chrono::milliseconds retry_after{0};
  bool global = false;
};
// nullopt when the answer is not a 429. `body` is the answer's JSON ({"retry_after": 1.5, "global": false}).
std::optional<RateLimited> read_429(int status, const net::Headers& headers, std::string_view body);

class RateLimits {
 public:
  std::chrono::milliseconds wait_before(std::string_view route, RateClock::time_point now) const;
  void observe(std::string_view route, int status, const net::Headers& headers, std::string_view body,
               RateClock::time_point now);

  // For tests and /metrics: the bucket hash a route was seen in ("" when none yet), its remaining count
  // (-1 unknown).
  std::string bucket_of(std::string_view route) const;
  int remaining(std::string_view route) const;

 private:
  struct Bucket {
    int remaining = -1;
    RateClock::time_point reset{};
  };
  // The key of a route's bucket state: the bucket hash plus the route's major parameter, or the route.
  std::string state_key(std::string_view route) const;

  mutable std::mutex mu_;
  std::map<std::string, std::string, std::less<>> hash_of_route_;
  std::map<std::string, Bucket, std::less<>> buckets_;
  RateClock::time_point global_reset_{};
};

}  // namespace sigil::channels::discord
