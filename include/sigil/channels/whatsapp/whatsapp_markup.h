// Markdown (what models write: CommonMark with GitHub's strikethrough, tables and autolinks) rendered to
// WhatsApp's formatting, from md4c's syntax tree (channels/markdown_walk.h), never by pattern matching on the
// text.
//
// What it promises:
// - Strong is `*x*`, emphasis `_x_`, strikethrough `~x~`, inline code `` `x` ``, a code block "```" on its
//   own lines (WhatsApp's monospace; no language is written), headings bold lines, list items "- " or
//   "N. " (WhatsApp's list syntax), block quotes "> " on every line (flat: WhatsApp has no nested quotes), a
//   rule "———", table rows their cells joined by " | " (header cells bold), an image its alt text and URL;
//   raw HTML is shown as text.
// - Links: WhatsApp has no link markup and links bare URLs itself, so a link is "text (url)", an autolink
//   its URL; no formatting is written inside a link's text.
// - WhatsApp's formatting has no escape character: a literal `*`, `_`, `~` or `` ` `` that could open
//   formatting (at the start of a word) gets a zero-width space (U+200B) before it, so the model's literal
//   text stays literal.
// - "```" inside a code block would close it: a zero-width space is put between its backticks. A backtick
//   inside an inline code span would end it: such a span is written as literal text instead.
// - Paragraphs are separated by one blank line; the result has no leading or trailing whitespace.
// - The text limit (4,096 characters a message) is the channel's to keep by cutting the result (split.h).
#pragma once

#include <string>
#include <string_view>

namespace sigil::channels::whatsapp {

// Markdown -> WhatsApp's formatted text.
std::string render_whatsapp(std::string_view markdown);

// Plain text as WhatsApp shows it literally: formatting characters at a word's start kept literal (above).
std::string escape_whatsapp_text(std::string_view text, bool after_word);

}  // namespace sigil::channels::whatsapp
