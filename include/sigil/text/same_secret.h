// Comparing a secret a remote client sent (a bearer token, a webhook's secret header) with the one expected.
//
// What it promises: equal strings, in time that depends on the lengths only, never on where they differ, so
// a remote client cannot find a secret byte by byte.
#pragma once

#include <cstddef>
#include <string_view>

namespace sigil::text {

inline bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace sigil::text
