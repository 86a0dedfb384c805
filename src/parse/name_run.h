// How many of the 16 bytes at p are name bytes (spec 2.1: a-z A-Z 0-9 `_` `-` `.` `:`), counted from the
// first; 16 when all are. The whole-markup path reads a tag name and an attribute key with it: one class
// test of 16 bytes at once, where a table load per byte cost about six instructions a byte.
//
// Promise: name_run16(p) == the count of leading bytes b of p[0, 16) with kNameBytes[b] (opener_scan.h) and
// NameTable's alphabet (name_table.cpp), for any bytes; it reads exactly p[0, 16), so the caller must have
// 16 bytes at hand (tests/parse/name_run_test.cpp compares it with the table over every byte value in every
// position).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sigil::parse {

// The scalar definition (also the fallback without SSE2).
constexpr bool name_byte_class(unsigned char c) noexcept {
  const unsigned char folded = c | 0x20;
  return (folded >= 'a' && folded <= 'z') || (c >= '-' && c <= ':' && c != '/') || c == '_';
}

inline std::size_t name_run16(const unsigned char* p) noexcept {
#if defined(__SSE2__)
  // Two ranges by one signed compare each (a byte shifted so that the range starts at -128): letters with
  // 0x20 ORed in (A-Z onto a-z; no other byte lands in a-z that way but `@` to a backtick and `[`-`_` to
  // `{`-DEL, all outside), and `-` to `:` without `/`; then `_`.
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i folded = _mm_or_si128(x, _mm_set1_epi8(0x20));
  const __m128i letter = _mm_cmplt_epi8(_mm_add_epi8(folded, _mm_set1_epi8(static_cast<char>(0x80 - 'a'))),
                                        _mm_set1_epi8(static_cast<char>(0x80 + 26)));
  const __m128i punct_digit = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8(static_cast<char>(0x80 - '-'))),
                                             _mm_set1_epi8(static_cast<char>(0x80 + (':' - '-' + 1))));
  const __m128i slash = _mm_cmpeq_epi8(x, _mm_set1_epi8('/'));
  const __m128i under = _mm_cmpeq_epi8(x, _mm_set1_epi8('_'));
  const __m128i name = _mm_or_si128(_mm_or_si128(letter, under), _mm_andnot_si128(slash, punct_digit));
  const unsigned stops = ~static_cast<unsigned>(_mm_movemask_epi8(name)) & 0xFFFFu;
  return static_cast<std::size_t>(std::countr_zero(stops | 0x10000u));
#else
  std::size_t n = 0;
  while (n < 16 && name_byte_class(p[n])) ++n;
  return n;
#endif
}

}  // namespace sigil::parse
