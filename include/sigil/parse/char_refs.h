// Character references in attribute values and text bodies (spec 2.3).
#pragma once

#include <string>
#include <string_view>

namespace sigil::parse {

// Decodes `&amp; &lt; &gt; &quot; &apos;`, `&#N;` and `&#xH;`. `&#0;`, surrogates and values above U+10FFFF
// become U+FFFD; an unknown or malformed reference is kept as written.
std::string decode_char_refs(std::string_view s);

// Appends the UTF-8 encoding of `cp` (which must be a scalar value) to `out`.
void append_utf8(std::string& out, char32_t cp);

}  // namespace sigil::parse
