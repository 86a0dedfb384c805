// A web page's readable text (the fetch-page action): HTML parsed by libxml2's HTML parser, then our own
// main-content extraction.
//
// What it promises:
// - Any bytes are accepted (broken markup is repaired by the parser, never refused). The text is UTF-8:
//   the charset comes from `charset` (the Content-Type header's), else the page's own <meta charset> /
//   http-equiv declaration, else UTF-8 with invalid bytes replaced by U+FFFD.
// - Never in the text: script, style, noscript, template, nav, header (except an article's or main's own),
//   footer, aside, form, iframe, svg, buttons and inputs, hidden elements (hidden, aria-hidden="true"), ARIA
//   navigation/banner/contentinfo/complementary/search regions, and blocks whose class or id names them
//   furniture (ad, cookie, newsletter, share, social, related, sidebar, breadcrumb, comments, popup...),
//   unless the class also says content (content, article, post, entry...) or the block holds a <main>,
//   <article> or <h1>.
// - The content root: the <main> (or role="main") with the most text, else the <article> with the most
//   text, else the block where paragraph text is densest (text length scored up the tree, discounted by
//   link density), else <body>. When the root has no <h1>, the last <h1> before it leads the text.
// - Output: headings as "# ", "## "..., paragraphs, list items ("- " or "1. ", nested ones indented),
//   quotations ("> "), table rows (cells joined by " | "), preformatted code in ``` fences with its
//   whitespace kept; links and inline elements as their text. Whitespace runs become one space; blocks
//   are separated by a blank line (consecutive list items by a line break). At most `max_bytes` of text,
//   cut after a whole block when one fits, never inside a UTF-8 sequence; `cut` says so.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sigil::actions {

struct PageText {
  std::string title;  // <title>, whitespace collapsed; empty when none
  std::string text;
  bool cut = false;  // the text was longer than max_bytes
};

PageText html_to_text(std::string_view html, std::string_view charset = {},
                      std::size_t max_bytes = 64 * 1024);

// Bytes in `charset` (a label as Content-Type or <meta> write it: "ISO-8859-1", "windows-1252", "utf-8")
// as UTF-8; invalid or unknown input never fails: unknown labels are read as UTF-8, and bytes that are not
// valid UTF-8 become U+FFFD.
std::string to_utf8(std::string_view bytes, std::string_view charset);

}  // namespace sigil::actions
