#include "sigil/text/unicode.h"

#include <utf8proc.h>

#include <cstdint>

#include "sigil/text/utf8.h"

namespace sigil::text {
namespace {

utf8proc_category_t category(char32_t c) noexcept {
  return static_cast<utf8proc_category_t>(utf8proc_category(static_cast<utf8proc_int32_t>(c)));
}

}  // namespace

bool is_punctuation(char32_t c) noexcept {
  if (c < 0x80) return is_ascii_punctuation(static_cast<unsigned char>(c));
  if (c > 0x10FFFF) return false;
  const utf8proc_category_t k = category(c);
  return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

bool is_lowercase_letter(char32_t c) noexcept {
  if (c < 0x80) return c >= 'a' && c <= 'z';
  return c <= 0x10FFFF && category(c) == UTF8PROC_CATEGORY_LL;
}

bool is_decimal_digit(char32_t c) noexcept {
  if (c < 0x80) return c >= '0' && c <= '9';
  return c <= 0x10FFFF && category(c) == UTF8PROC_CATEGORY_ND;
}

char32_t decode_at(std::string_view s, std::size_t i, std::size_t* len) noexcept {
  if (i >= s.size()) {
    *len = 0;
    return 0;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  if (p[0] < 0x80) {
    *len = 1;
    return p[0];
  }
  const std::size_t n = unit_length(s, i);
  *len = n;
  // A unit is well-formed exactly when it is as long as its lead byte announces.
  const std::size_t expected = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC0 ? 2 : 0;
  if (n != expected || p[0] < 0xC2 || p[0] > 0xF4) return U'\uFFFD';
  switch (n) {
    case 2:
      return (char32_t{p[0] & 0x1Fu} << 6) | (p[1] & 0x3Fu);
    case 3:
      return (char32_t{p[0] & 0x0Fu} << 12) | (char32_t{p[1] & 0x3Fu} << 6) | (p[2] & 0x3Fu);
    default:
      return (char32_t{p[0] & 0x07u} << 18) | (char32_t{p[1] & 0x3Fu} << 12) | (char32_t{p[2] & 0x3Fu} << 6) |
             (p[3] & 0x3Fu);
  }
}

}  // namespace sigil::text
