// Splitting text to a channel's limit at safe points.
//
// split_once(text, limit, unit) looks only at the longest prefix of `text` that fits the limit (and the
// code point right after it), so splitting a text as it streams in gives the same messages as splitting it
// whole. Where it cuts, best first (a cut outside code is taken when it keeps the message at least half
// full):
//   1. after a paragraph break (a blank line), outside a code fence;
//   2. after a line break, outside a code fence;
//   3. after a sentence end (`.`, `!`, `?` then a space; `。！？`), outside code;
//   4. after a space or tab, outside code;
//   5. after a line break inside a code fence: the fence is closed at the end of the message and reopened
//      (with its info string) at the start of the next, both counted in the limit;
//   then the same cuts anywhere in the prefix, however short the message, then
//   6. a hard cut at the limit (a word longer than the limit), at a grapheme cluster boundary when one is
//      there, never inside a UTF-8 sequence (inside a fence it is closed and reopened too).
// The message ends without the whitespace before the cut; the rest starts without whitespace (a reopened
// fence keeps the rest of its line as it was).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/deliver/capabilities.h"

namespace sigil::deliver {

// Length of s in unit. Ill-formed UTF-8 counts as U+FFFD per unit (1 code point, 1 UTF-16 unit, its bytes).
std::size_t text_units(std::string_view s, TextUnit unit) noexcept;

struct SplitCut {
  std::string head;          // the message: text before the cut, trailing whitespace removed, fence closed
  std::size_t consumed = 0;  // bytes of text the head stands for (the rest starts at text.substr(consumed))
  std::string reopen;        // to put before the rest: a reopened fence line, or empty
  bool inside_fence = false;
  bool hard = false;  // no safe point: cut at the limit
};

// nullopt when text fits (limit 0: no limit). Otherwise the first message. `text` should not start with
// whitespace (the outbox trims it). A limit too small for one code point still makes progress (one code
// point per message) rather than looping.
std::optional<SplitCut> split_once(std::string_view text, std::size_t limit, TextUnit unit);

// The rest after a cut: reopen + text.substr(consumed) with its leading whitespace removed (but not when
// a fence was reopened: the code line keeps its indentation).
std::string rest_after(std::string_view text, const SplitCut& cut);

// The whole text as messages, each within the limit: split_once() until it fits. Leading and trailing
// whitespace of the text is removed; an all-whitespace text gives no message.
std::vector<std::string> split_text(std::string_view text, std::size_t limit, TextUnit unit);

}  // namespace sigil::deliver
