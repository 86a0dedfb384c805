// The lenient JSON reader for `json` bodies (spec 5.1, 5.3, 5.4).
//
// Reads one object or array with the repairs of spec 5.3, each recorded once by name in
// LenientResult::repairs, in the order first met (the parser turns any of them into a `json-repaired`
// diagnostic):
//
//   "code-fence"          the value wrapped in a ```json / ``` / ~~~ fence (opening line, optional closing
//   line) "trailing-comma"      `[1, 2,]`, `{"a": 1,}`, also a comma left before the end of the text
//   "single-quotes"       'strings' (and \' inside them)
//   "unquoted-key"        {itemId: 1}: keys matching [A-Za-z_$][A-Za-z0-9_$-]*
//   "comment"             // line and /* block */ comments
//   "unclosed-comment"    a block comment still open at the end of the text
//   "python-literal"      True False None
//   "curly-quotes"        “…” and ‘…’ as string quotes (a ’ inside a "…" string is content)
//   "raw-newline"         a raw line feed or carriage return inside a string, kept as written
//   "raw-control"         a raw tab or other control character inside a string, kept as written
//   "escaped-apostrophe"  \' inside a string not quoted with '
//   "unclosed-string"     a string left open at the end of the text (closed there)
//   "missing-close"       closing brackets missing at the end of the text (closed there)
//
// Everything else is an error with a one-line message naming the byte offset, for example
// "expected ':' after key at byte 5" or "expected a value at byte 22 (end of input)": a missing colon or
// value, a missing comma, a bad escape or number, an unknown bare word, a closer that does not match,
// nesting deeper than 512 ("nesting too deep"), or anything that is not a value.
//
// Strings are decoded (standard escapes; \uXXXX with surrogate pairs, a lone surrogate becomes U+FFFD).
// Integers become int64, or uint64 when only that fits, otherwise double; other numbers double. A key given
// twice keeps its last value. The reader is iterative (no recursion) and linear in the input's length.
// Input bytes are not checked as UTF-8 (the caller sanitizes).
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::parse {

struct LenientResult {
  bool ok = false;
  boost::json::value value;          // the value read (null when !ok)
  std::vector<std::string> repairs;  // repair names as listed above, each once
  std::string error;                 // when !ok: one line, with the byte offset
  // Offset in the text passed in just past the value, and past its closing fence line when the value was
  // opened with a fence and one follows. When !ok: the offset where the error was found.
  std::size_t consumed = 0;
};

// Reads one JSON object or array from the start of `text` (after leading whitespace and an optional opening
// fence line). Text after the value is not looked at: compare `consumed` with the size.
LenientResult parse_lenient(std::string_view text);

// Reads values separated by whitespace and at most one comma each (spec 5.4, several values in a row) until
// something that does not start a value, or the end. Each result's `consumed` is an offset in `text`. Reading
// stops after the first value that fails (it is the last element). A closing fence line right after the last
// value is taken too (recorded as "code-fence" on that value when no opening fence was read). If `stop` is
// given it receives where reading stopped: just past the last value (and such a fence line), before any
// whitespace or comma that no further value follows; for a failed value, its error offset. An input with no
// value start gives one failed result.
std::vector<LenientResult> parse_lenient_sequence(std::string_view text, std::size_t* stop = nullptr);

}  // namespace sigil::parse
