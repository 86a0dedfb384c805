#include "sigil/text/emoji_compare.h"

#include <cstddef>

namespace sigil::text {

std::string without_variation_selectors(std::string_view s) {
  // U+FE0E and U+FE0F are EF B8 8E and EF B8 8F; no other well-formed sequence contains EF B8 8E/8F.
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i + 2 < s.size() && s[i] == '\xEF' && s[i + 1] == '\xB8' &&
        (s[i + 2] == '\x8E' || s[i + 2] == '\x8F')) {
      i += 2;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

bool same_emoji(std::string_view a, std::string_view b) {
  return without_variation_selectors(a) == without_variation_selectors(b);
}

}  // namespace sigil::text
