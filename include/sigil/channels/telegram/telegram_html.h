// Markdown (what models write: CommonMark with GitHub's strikethrough, tables and autolinks) rendered to
// the HTML subset Telegram's `parse_mode: "HTML"` accepts, from md4c's syntax tree, never by pattern
// matching on the text.
//
// What it promises:
// - The output uses only tags Telegram knows: b, i, s, u, code, pre, pre>code class="language-x", a href,
//   blockquote. Everything else in the text is escaped: `<`, `>`, `&` become &lt; &gt; &amp; (and `"`
//   inside an href &quot;), so no text of the model's can open or close a tag. Raw HTML in the Markdown
//   is shown as text.
// - Tags nest properly (a tag closes before its parent); nothing nests inside code or pre; blockquotes are
//   not nested (an inner quote is flattened into the outer one).
// - Structure Telegram cannot show is written as text: headings bold, list items with "• " or "N. ",
//   a rule as "———", table rows with cells joined by " | ", an image as its alt text and its URL.
// - Paragraphs are separated by one blank line; the result has no leading or trailing whitespace.
// - Character references: &lt; &gt; &amp; &quot; stay as they are, numeric ones become the character
//   (U+0000 and invalid code points become U+FFFD), other named ones are shown as written (escaped).
// - The visible text (telegram_visible_units(), what Telegram counts against its 4096 limit) is never
//   longer than the Markdown it came from, so a Markdown message cut to 4096 UTF-16 units renders to a
//   message Telegram takes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sigil::channels::telegram {

// Markdown -> Telegram HTML.
std::string render_telegram_html(std::string_view markdown);

// Escapes text for Telegram HTML: & < > (and " for attribute values).
std::string escape_telegram_html(std::string_view text, bool attribute = false);

// The length Telegram counts for an HTML message: UTF-16 units of the text after tags are removed and
// the four named and numeric character references are decoded.
std::size_t telegram_visible_units(std::string_view html);

}  // namespace sigil::channels::telegram
