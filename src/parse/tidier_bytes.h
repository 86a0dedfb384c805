// The byte classes both halves of the tidier read (private to parse/: tidier.cpp, tidier_machine.cpp).
#pragma once

#include <string_view>

#include "sigil/text/ascii.h"

namespace sigil::parse::tidier_bytes {

using text::ascii::is_blank;
using text::ascii::is_digit;
using text::ascii::is_markup_space;

// Emphasis run characters: held until the byte after the run shows whether it is dangling.
constexpr bool is_run_char(unsigned char b) noexcept { return b == '*' || b == '_' || b == '~'; }

// Within a line, a CR (one not followed by LF) counts as a blank: whitespace that shows nothing.
constexpr bool is_line_blank(unsigned char b) noexcept { return is_blank(b) || b == '\r'; }

// Closing punctuation: blanks before it and the gap go entirely (10.1).
constexpr bool is_closing(unsigned char b) noexcept {
  return b != 0 && std::string_view(".,;:!?)]}").find(static_cast<char>(b)) != std::string_view::npos;
}

}  // namespace sigil::parse::tidier_bytes
