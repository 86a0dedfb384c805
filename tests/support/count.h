// How many times a piece of text stands in a longer one, for tests that count what a generated text holds.
#pragma once

#include <cstddef>
#include <string_view>

namespace sigil::test {

// Occurrences of `needle` in `haystack`, overlapping ones included.
inline std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

}  // namespace sigil::test
