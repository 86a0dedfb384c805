// Random text made of the pieces JSON readers trip on: quotes, backslashes, brackets, comment openers,
// control bytes, smart quotes and multi-byte UTF-8. The lenient JSON reader's and the scanner's property
// tests build their keys, strings and noise from it.
#pragma once

#include <cstddef>
#include <iterator>
#include <random>
#include <string>

namespace sigil::testing {

// Up to max_len pieces (not bytes), each chosen uniformly.
inline std::string random_json_pieces(std::mt19937& rng, std::size_t max_len) {
  static const char* const pieces[] = {"a",
                                       "Z",
                                       "0",
                                       "k_1",
                                       " ",
                                       "\"",
                                       "\\",
                                       "/",
                                       "'",
                                       "\n",
                                       "\t",
                                       "\x01",
                                       "\x1f",
                                       "\x7f",
                                       "<",
                                       "}",
                                       "]",
                                       "{",
                                       "[",
                                       ",",
                                       ":",
                                       "//",
                                       "/*",
                                       "*/",
                                       "\xC3\xA9",
                                       "\xE2\x80\x99",
                                       "\xE2\x80\x9C",
                                       "\xE2\x80\x9D",
                                       "\xF0\x9F\x98\x80",
                                       "\xE2\x82\xAC"};
  std::uniform_int_distribution<std::size_t> len(0, max_len);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(pieces) - 1);
  std::string s;
  for (std::size_t n = len(rng); n > 0; --n) s += pieces[pick(rng)];
  return s;
}

}  // namespace sigil::testing
