// Character references (spec 2.3: attribute values and text bodies; also what a Markdown renderer meets),
// and UTF-8 encoding of one code point: the one home for both.
#pragma once

#include <string>
#include <string_view>

namespace sigil::text {

// Decodes `&amp; &lt; &gt; &quot; &apos;`, `&#N;` and `&#xH;`. `&#0;`, surrogates and values above U+10FFFF
// become U+FFFD; an unknown or malformed reference is kept as written.
std::string decode_char_refs(std::string_view s);

// Decodes `ref`, which must be exactly one reference ("&amp;", "&#x1F44D;"), the same way, appending its
// text to `out`; false (nothing appended) when it is not one decode_char_refs() knows.
bool decode_char_ref(std::string_view ref, std::string& out);

// Appends the UTF-8 encoding of `cp` (U+0000 included); a surrogate or a value above U+10FFFF appends U+FFFD.
void append_utf8(std::string& out, char32_t cp);

}  // namespace sigil::text
