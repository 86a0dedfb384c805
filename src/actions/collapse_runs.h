// Text made one tidy line for a message: every run of the characters a predicate calls gaps (white space,
// control characters) becomes one space, and none is kept at the start or the end.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace sigil::actions {

// `s` with each run of characters for which gap(c) is true made one space, none leading or trailing. Stops
// once the result is longer than `stop_after` bytes: a caller that cuts it there need not read the rest.
template <class Gap>
std::string collapse_runs(std::string_view s, Gap gap, std::size_t stop_after = std::string::npos) {
  std::string out;
  out.reserve(std::min(s.size(), stop_after));
  bool space = false;
  for (const char c : s) {
    if (gap(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() > stop_after) break;
  }
  return out;
}

}  // namespace sigil::actions
