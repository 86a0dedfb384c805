// Markdown (what models write: CommonMark with GitHub's strikethrough, tables and autolinks) rendered to
// Slack's mrkdwn, from md4c's syntax tree (channels/markdown_walk.h), never by pattern matching on the text.
//
// What it promises:
// - Strong is `*x*`, emphasis `_x_`, strikethrough `~x~`, inline code `` `x` ``, a code block "```" on its
//   own lines (Slack shows no language, so none is written), a link `<url|text>` (an autolink `<url>`),
//   headings bold lines, list items "• " or "N. ", block quotes "> " on every line (flat: Slack has no nested
//   quotes), a rule "———", table rows their cells joined by " | " (header cells bold), an image its alt text
//   and URL; raw HTML is shown as text.
// - `&`, `<` and `>` are escaped everywhere as Slack asks (`&amp;`, `&lt;`, `&gt;`), code included, so no
//   text can become a mention, a channel link or `<!everyone>`; in a link's URL `|` is %7C.
// - Slack's mrkdwn has no escape character: a literal `*`, `_`, `~` or `` ` `` that could open formatting
//   (at the start of a word) gets a zero-width space (U+200B) before it, so the model's literal text stays
//   literal. Inside a link's text no formatting is written (Slack shows none there).
// - "```" inside a code block would close it: a zero-width space is put between its backticks. A backtick
//   inside an inline code span would end it on Slack, which has no longer delimiter: such a span is written
//   as literal text (escaped as above) instead.
// - Paragraphs are separated by one blank line; the result has no leading or trailing whitespace.
// - The text limit (Slack recommends at most 4,000 characters a message) is the channel's to keep by
//   cutting the result (split.h).
#pragma once

#include <string>
#include <string_view>

namespace sigil::channels::slack {

// Markdown -> Slack mrkdwn.
std::string render_slack_mrkdwn(std::string_view markdown);

// Plain text as mrkdwn shows it literally: `& < >` escaped and formatting characters kept literal (above).
std::string escape_slack_text(std::string_view text, bool after_word);

}  // namespace sigil::channels::slack
