// Reading an HTTP Retry-After header (RFC 9110 10.2.3): how long a server asks us to wait.
//
// Promises: both forms are understood, delay-seconds ("120") and an HTTP-date in any of the three forms
// RFC 9110 5.6.7 says recipients must accept (IMF-fixdate, RFC 850, asctime). A date in the past means
// zero. Anything else (empty, negative, a fraction, garbage, a nonexistent date) is nullopt: the caller
// falls back to its own backoff. No clamping: the caller caps the wait at what it can afford.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace sigil::net {

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value,
                                                      std::chrono::system_clock::time_point now);

}  // namespace sigil::net
