// ASCII helpers, the one home for them: byte classes, case folding, case-insensitive matching, trimming.
// Names and keys match ASCII case-insensitively (spec 2.1, 9.2); Host headers, media types and extensions
// are ASCII too.
//
// What they promise:
// - They look at bytes, never at the locale (<cctype> follows it, and is undefined for negative chars).
//   Bytes >= 0x80 belong to no class and case folding never changes them, so UTF-8 passes through untouched.
// - Case folding is A-Z <-> a-z only.
// - Three sets of whitespace, because the formats differ; each caller says which one it means:
//     is_space:        space, tab, LF, CR, FF, VT (C's isspace in the "C" locale): values people and
//                      models write; the trims use it unless told another set;
//     is_markup_space: space, tab, LF, CR (whitespace as JSON and XML define it): tags and JSON bodies;
//     is_blank:        space, tab: inside one line, and HTTP's optional whitespace.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sigil::text::ascii {

constexpr bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }
constexpr bool is_markup_space(char c) noexcept { return is_blank(c) || c == '\n' || c == '\r'; }
constexpr bool is_space(char c) noexcept { return is_markup_space(c) || c == '\f' || c == '\v'; }

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_upper(char c) noexcept { return c >= 'A' && c <= 'Z'; }
constexpr bool is_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }
constexpr bool is_alpha(char c) noexcept { return is_upper(c) || is_lower(c); }
constexpr bool is_alnum(char c) noexcept { return is_alpha(c) || is_digit(c); }
constexpr bool is_xdigit(char c) noexcept {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A hex digit's value (either case); -1 for any other byte.
constexpr int hex_value(char c) noexcept {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr char lower(char c) noexcept { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr char upper(char c) noexcept { return is_lower(c) ? static_cast<char>(c - 'a' + 'A') : c; }

inline std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

inline std::string to_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = upper(c);
  return out;
}

constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

constexpr bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// Where `needle` first stands in `text` at or after `from`, ignoring ASCII case; npos when nowhere.
constexpr std::size_t ifind(std::string_view text, std::string_view needle, std::size_t from = 0) noexcept {
  if (from > text.size() || needle.size() > text.size() - from) return std::string_view::npos;
  for (std::size_t i = from; i + needle.size() <= text.size(); ++i) {
    if (iequals(text.substr(i, needle.size()), needle)) return i;
  }
  return std::string_view::npos;
}

constexpr bool icontains(std::string_view text, std::string_view needle) noexcept {
  return ifind(text, needle) != std::string_view::npos;
}

// Trimming drops the bytes of one whitespace set (is_space unless another is named: is_markup_space for
// tags and JSON, where FF and VT are content; is_blank for HTTP's optional whitespace) from one end or both.
using CharClass = bool (*)(char) noexcept;

constexpr std::string_view trim_left(std::string_view s, CharClass space = is_space) noexcept {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  return s;
}

constexpr std::string_view trim_right(std::string_view s, CharClass space = is_space) noexcept {
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

constexpr std::string_view trim(std::string_view s, CharClass space = is_space) noexcept {
  return trim_right(trim_left(s, space), space);
}

}  // namespace sigil::text::ascii
