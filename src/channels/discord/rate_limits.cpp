#include "sigil/channels/discord/rate_limits.h"

#include <charconv>
#include <cmath>
#include <vector>

#include "sigil/channels/json_fields.h"
#include "sigil/net/retry_after.h"

namespace sigil::channels::discord {
namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at <= path.size()) {
    const std::size_t slash = path.find('/', at);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    out.push_back(path.substr(at, end - at));
    if (slash == std::string_view::npos) break;
    at = slash + 1;
  }
  return out;
}

// The major parameter: the channel, guild or webhook id right after its collection.
std::string_view major_of(std::string_view route) {
  const auto parts = segments(route.substr(route.find(' ') + 1));
  for (std::size_t i = 0; i + 1 < parts.size(); ++i)
    if ((parts[i] == "channels" || parts[i] == "guilds" || parts[i] == "webhooks") &&
        all_digits(parts[i + 1]))
      return parts[i + 1];
  return {};
}

std::optional<double> seconds_of(const std::string* value) {
  if (value == nullptr) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), v);
  if (ec != std::errc() || end != value->data() + value->size() || !std::isfinite(v) || v < 0)
    return std::nullopt;
  return v;
}

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(std::min(seconds, 86'400.0) * 1000)));
}

}  // namespace

std::string route_key(std::string_view method, std::string_view path) {
  std::string out(method);
  out += ' ';
  const auto parts = segments(path);
  bool major_done = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    const std::string_view p = parts[i];
    if (i > 0 && parts[i - 1] == "reactions" && p != "@me") {
      out += "{emoji}";
    } else if (all_digits(p)) {
      const bool major =
          !major_done && i > 0 &&
          (parts[i - 1] == "channels" || parts[i - 1] == "guilds" || parts[i - 1] == "webhooks");
      if (major) {
        out += p;
        major_done = true;
      } else {
        out += "{id}";
      }
    } else {
      out += p;
    }
  }
  return out;
}

std::optional<RateLimited> read_429(int status, const net::Headers& headers, std::string_view body) {
  if (status != 429) return std::nullopt;
  RateLimited r;
  std::optional<double> seconds;
  if (const auto parsed = parse_object(body)) {
    const auto& o = *parsed;
    if (const auto* ra = o.if_contains("retry_after"); ra != nullptr && ra->is_number())
      seconds = ra->to_number<double>();
    if (const auto* g = o.if_contains("global"); g != nullptr && g->is_bool()) r.global = g->as_bool();
  }
  if (const std::string* g = net::find_header(headers, "X-RateLimit-Global"); g != nullptr && *g == "true")
    r.global = true;
  if (!seconds || *seconds < 0) {
    if (const std::string* h = net::find_header(headers, "Retry-After"))
      if (auto s = net::parse_retry_after(*h, std::chrono::system_clock::now()))
        seconds = static_cast<double>(s->count());
  }
  if (!seconds) seconds = seconds_of(net::find_header(headers, "X-RateLimit-Reset-After"));
  r.retry_after =
      millis(seconds.value_or(1.0));  // a 429 without a time: wait a second, as Discord's clients do
  return r;
}

std::string RateLimits::state_key(std::string_view route) const {
  const auto it = hash_of_route_.find(route);
  if (it == hash_of_route_.end()) return std::string(route);
  return it->second + ":" + std::string(major_of(route));
}

std::chrono::milliseconds RateLimits::wait_before(std::string_view route, RateClock::time_point now) const {
  std::lock_guard lock(mu_);
  RateClock::time_point until = global_reset_;
  if (const auto it = buckets_.find(state_key(route)); it != buckets_.end() && it->second.remaining == 0)
    until = std::max(until, it->second.reset);
  if (until <= now) return std::chrono::milliseconds(0);
  return std::chrono::ceil<std::chrono::milliseconds>(until - now);
}

void RateLimits::observe(std::string_view route, int status, const net::Headers& headers,
                         std::string_view body, RateClock::time_point now) {
  std::lock_guard lock(mu_);
  if (const std::string* hash = net::find_header(headers, "X-RateLimit-Bucket");
      hash != nullptr && !hash->empty())
    hash_of_route_[std::string(route)] = *hash;
  Bucket& b = buckets_[state_key(route)];
  if (const auto remaining = seconds_of(net::find_header(headers, "X-RateLimit-Remaining")))
    b.remaining = static_cast<int>(*remaining);
  if (const auto reset_after = seconds_of(net::find_header(headers, "X-RateLimit-Reset-After")))
    b.reset = now + millis(*reset_after);
  if (const auto limited = read_429(status, headers, body)) {
    if (limited->global) {
      global_reset_ = std::max(global_reset_, now + limited->retry_after);
    } else {
      b.remaining = 0;
      b.reset = std::max(b.reset, now + limited->retry_after);
    }
  }
  if (b.remaining == 0 && b.reset <= now) b.remaining = -1;  // the reset is past: the bucket is full again
}

std::string RateLimits::bucket_of(std::string_view route) const {
  std::lock_guard lock(mu_);
  const auto it = hash_of_route_.find(route);
  return it == hash_of_route_.end() ? std::string() : it->second;
}

int RateLimits::remaining(std::string_view route) const {
  std::lock_guard lock(mu_);
  const auto it = buckets_.find(state_key(route));
  return it == buckets_.end() ? -1 : it->second.remaining;
}

}  // namespace sigil::channels::discord
