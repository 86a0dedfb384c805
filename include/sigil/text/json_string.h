// JSON text written directly, without building a Boost.JSON value first: for the few hot paths that make
// JSON per directive or per token (exactly-once keys and results, web chat text frames).
//
// What it promises:
// - append_json_string() writes exactly what Boost.JSON's serializer writes for the same string: a quoted
//   string with `"` and `\` escaped, \b \t \n \f \r for those control characters, \u00xx (lowercase hex)
//   for the other bytes below 0x20, and every other byte as it is (UTF-8 is not checked here). Keys and
//   texts made either way compare equal, byte for byte.
#pragma once

#include <string>
#include <string_view>

namespace sigil::text {

void append_json_string(std::string& out, std::string_view s);

// Whether `s` is one JSON text (RFC 8259: one value, whitespace around it allowed), as SQLite's
// json_valid() judges it for the exactly-once log's results: strict syntax, no control characters inside
// strings, at most 2000 levels of nesting; string contents are not checked for UTF-8. Allocates nothing
// for nesting up to 64 levels.
bool is_json(std::string_view s);

}  // namespace sigil::text
