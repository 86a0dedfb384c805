// A moment as a person or a JSON reader sees it, in UTC: one way for every layer that shows times to a model
// or in a result ("2023-11-14 22:13 UTC", "2023-11-14T22:13:20Z").
#pragma once

#include <time.h>  // gmtime_r

#include <chrono>
#include <ctime>
#include <string>

namespace sigil::text {

// `t` formatted by strftime's `format` in UTC; "?" for a time the C library cannot break down.
inline std::string utc_format(std::chrono::system_clock::time_point t, const char* format) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  if (::gmtime_r(&tt, &tm) == nullptr) return "?";
  char buf[64];
  const std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

// "2023-11-14 22:13 UTC": for messages.
inline std::string utc_minute(std::chrono::system_clock::time_point t) {
  return utc_format(t, "%Y-%m-%d %H:%M UTC");
}
// "2023-11-14T22:13:20Z": for result JSON.
inline std::string iso_utc(std::chrono::system_clock::time_point t) {
  return utc_format(t, "%Y-%m-%dT%H:%M:%SZ");
}

}  // namespace sigil::text
