// Random ids, the one generator behind every id and token sigil makes up: turn ids ("turn-", "web-",
// "oai-"), the store's session, the media store's temporary names, multipart boundaries.
//
// What it promises:
// - The characters are drawn uniformly and independently from a per-thread std::mt19937_64 seeded with 256
//   bits from std::random_device (again in a forked child), so no two processes (a restarted gateway, a
//   child and its parent) or threads share a sequence.
//   Never a counter and never the clock: the executor's exactly-once keys include the turn id, and a
//   restarted process must never reuse an earlier one's results.
// - Not a secret: the generator is fast, not cryptographic; nothing sigil authorizes rests on an id
//   being hard to guess (the gateway checks who owns a turn).
// - Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sigil::text {

// `prefix` followed by `hex_digits` lower-case hex digits (the default, 16, is 64 random bits).
std::string random_id(std::string_view prefix, std::size_t hex_digits = 16);

// `prefix` followed by `length` characters of `alphabet` (which must not be empty).
std::string random_id(std::string_view prefix, std::size_t length, std::string_view alphabet);

}  // namespace sigil::text
