// Markdown (what models write: CommonMark with GitHub's strikethrough, tables and autolinks) rendered for a
// Matrix `m.text` event: `formatted_body` in the HTML subset the spec recommends clients show
// (`format: org.matrix.custom.html`), and `body`, its plain text, both from md4c's syntax tree, never by
// pattern matching on the text.
//
// What it promises:
// - The HTML uses only tags of Matrix's recommended subset: strong, em, del, code, pre, pre>code
//   class="language-x", a href (http, https, ftp, mailto and magnet links only, as the spec allows; any
//   other link shows as its text and the target), blockquote and br. Everything else is escaped: `<`, `>`,
//   `&` and `"` become &lt; &gt; &amp; &quot;, so no text of the model's can open or close a tag; raw HTML
//   in the Markdown is shown as text.
// - Line breaks are <br> (HTML collapses a newline) except inside <pre>; headings are bold lines, list
//   items "• " or "N. ", a rule "———", table rows their cells joined by " | ", an image its alt text and URL.
//   Tags nest properly; no span outlives its block.
// - body: the same text without markup: code blocks fenced with ```, quotes "> " on every line, a link
//   "text (url)" (its URL alone when the text is the URL). Nothing in it is escaped: clients show body as
//   text.
// - Neither has leading or trailing whitespace.
#pragma once

#include <string>
#include <string_view>

namespace sigil::channels::matrix {

struct MatrixText {
  std::string body;  // plain text
  std::string html;  // formatted_body
};

MatrixText render_matrix_text(std::string_view markdown);

// Escapes text for HTML: & < > and ".
std::string escape_html(std::string_view text);

}  // namespace sigil::channels::matrix
