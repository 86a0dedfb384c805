// Unicode character classes the directive language needs (spec 7.2 decoration, 7.3 the first-line rule),
// answered from utf8proc's tables, with ASCII answered inline-fast since that is what models mostly write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sigil::text {

namespace detail {
// ASCII punctuation per UnicodeData (category P*): ! " # % & ' ( ) * , - . / : ; ? @ [ \ ] _ { }
inline constexpr std::uint64_t kAsciiPunctLo =  // bits for 0x00..0x3F
    (1ull << '!') | (1ull << '"') | (1ull << '#') | (1ull << '%') | (1ull << '&') | (1ull << '\'') |
    (1ull << '(') | (1ull << ')') | (1ull << '*') | (1ull << ',') | (1ull << '-') | (1ull << '.') |
    (1ull << '/') | (1ull << ':') | (1ull << ';') | (1ull << '?');
inline constexpr std::uint64_t kAsciiPunctHi =  // bits for 0x40..0x7F
    (1ull << ('@' - 64)) | (1ull << ('[' - 64)) | (1ull << ('\\' - 64)) | (1ull << (']' - 64)) |
    (1ull << ('_' - 64)) | (1ull << ('{' - 64)) | (1ull << ('}' - 64));
}  // namespace detail

// is_punctuation() of an ASCII byte, at compile time too (tables built from it need no start-up code).
constexpr bool is_ascii_punctuation(unsigned char c) noexcept {
  return c < 0x80 && (((c < 64) ? detail::kAsciiPunctLo : detail::kAsciiPunctHi) >> (c & 63)) & 1;
}

// General category P* (Pc Pd Ps Pe Pi Pf Po). ASCII `$ + < = > ^ ` | ~` are symbols (S*), not punctuation.
bool is_punctuation(char32_t c) noexcept;
// General category Ll.
bool is_lowercase_letter(char32_t c) noexcept;
// General category Nd.
bool is_decimal_digit(char32_t c) noexcept;

// Decodes the code point starting at s[i] (i < s.size()) and stores its length in *len. Meant for
// well-formed UTF-8; on an ill-formed unit it returns U+FFFD with *len the unit's length (as utf8.h cuts
// them), so callers can always advance. For i >= s.size() it returns 0 with *len == 0.
char32_t decode_at(std::string_view s, std::size_t i, std::size_t* len) noexcept;

}  // namespace sigil::text
