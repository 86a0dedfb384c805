// Emoji compared as people see them: with and without a variation selector (U+FE0E text style, U+FE0F
// emoji style) they are the same emoji, so "❤" and "❤️" name one reaction.
#pragma once

#include <string>
#include <string_view>

namespace sigil::text {

// s with every U+FE0E and U+FE0F removed; all other bytes (ill-formed ones too) kept as they are.
std::string without_variation_selectors(std::string_view s);

// True when a and b are equal once their variation selectors are removed.
bool same_emoji(std::string_view a, std::string_view b);

}  // namespace sigil::text
