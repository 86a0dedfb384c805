// Markdown (what models write) rendered for Signal: plain text plus `textStyle` ranges, from md4c's syntax
// tree (channels/markdown_walk.h), never by pattern matching on the text.
//
// What it promises:
// - Strong is a BOLD range, emphasis ITALIC, strikethrough STRIKETHROUGH, inline code and code blocks
//   MONOSPACE (a code block's text on its own lines, no fences), headings BOLD lines; nested spans give
//   overlapping ranges, as Signal shows them. Markdown has no spoiler syntax, so no SPOILER range is made.
// - A link is "text (url)", an autolink its URL; list items "• " or "N. ", block quotes "> " on every line,
//   a rule "———", table rows their cells joined by " | ", an image its alt text and URL; raw HTML is text.
//   No character is escaped: Signal shows the text as it is, so no markup can reach it except as literal
//   text.
// - Range offsets and lengths are in UTF-16 code units (what signal-cli's `textStyle` takes), counted on the
//   text as sent; no range is empty or reaches past the text, and none starts or ends inside a character.
// - split_signal_text() cuts a text into parts of at most `max_bytes` UTF-8 bytes (Signal's inline body
//   limit is 2,000 bytes; a longer body becomes a long-text attachment some apps do not show), each cut at a
//   paragraph break, a line break or a space when there is one in the part's second half, else at a
//   character boundary; the whitespace at a cut is dropped, and each part keeps the ranges that fall in it,
//   re-based and clipped to it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels::signal {

struct TextStyle {
  std::size_t start = 0;   // UTF-16 code units from the start of the text
  std::size_t length = 0;  // UTF-16 code units
  std::string style;       // BOLD, ITALIC, STRIKETHROUGH, MONOSPACE (SPOILER is Signal's too)

  bool operator==(const TextStyle&) const = default;
  // signal-cli's form: "start:length:STYLE".
  std::string wire() const;
};

struct SignalText {
  std::string text;  // UTF-8
  std::vector<TextStyle> styles;
};

// Markdown -> Signal's plain text and style ranges.
SignalText render_signal_text(std::string_view markdown);

// The parts of `t` of at most `max_bytes` UTF-8 bytes each (one part when it fits; none when it is empty).
std::vector<SignalText> split_signal_text(const SignalText& t, std::size_t max_bytes);

// UTF-16 code units of UTF-8 text (a 4-byte sequence counts 2).
std::size_t utf16_units(std::string_view utf8);

}  // namespace sigil::channels::signal
