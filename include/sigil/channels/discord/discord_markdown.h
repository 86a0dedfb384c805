// Markdown (what models write: CommonMark with GitHub's strikethrough, tables and autolinks) rendered to the
// Markdown Discord shows, from md4c's syntax tree, never by pattern matching on the text.
//
// What it promises:
// - Emphasis, strong, strikethrough, inline code, code blocks (with their language), links, headings 1-3,
//   lists and block quotes come out in Discord's own syntax (`*x*`, `**x**`, `~~x~~`, `` `x` ``, ```` ```lang
//   ````, `[text](url)`, `#`..`###`, `- ` / `N. `, `> `). Headings 4-6 are bold lines; a rule is "———"; table
//   rows are their cells joined by " | "; an image is its alt text and its URL; raw HTML is shown as text.
// - Text the model meant literally stays literal: the characters Discord would read as markup (`\ * _ ~ `` `
// ``
//   `|`, `[` `]`, `>` `#` `-` and `N.` at the start of a line, `<` before `@ # : /` or `t:`/`a:`) are
//   escaped with a backslash, so no text can turn into formatting, a mention or a spoiler by accident.
// - Code is never changed but for one thing: "```" inside a code block would close it on Discord, so a
//   zero-width space is put between its backticks. A code span uses enough backticks to hold its content.
// - Block quotes are flat (Discord has no nested quotes): every line of the quote starts with "> ".
// - Paragraphs are separated by one blank line; the result has no leading or trailing whitespace.
// - Escaping can make the result longer than the Markdown it came from: the channel cuts it again at
//   2,000 code points (split.h, which never cuts inside a code block without closing and reopening it).
#pragma once

#include <string>
#include <string_view>

namespace sigil::channels::discord {

// Markdown -> Discord Markdown.
std::string render_discord_markdown(std::string_view markdown);

// Backslash-escapes what Discord would read as markup in plain text (see above); `line_start` says whether
// the text begins a line.
std::string escape_discord_text(std::string_view text, bool line_start);

}  // namespace sigil::channels::discord
