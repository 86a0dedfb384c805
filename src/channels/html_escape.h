// The escaping the chats that take HTML-like markup share (Matrix and Telegram HTML, Slack's mrkdwn): `&`,
// `<` and `>` as &amp; &lt; &gt;, and `"` as &quot; where it is asked for (an attribute's value).
#pragma once

#include <string>
#include <string_view>

namespace sigil::channels {

inline void put_html_escaped(std::string& out, char c, bool quote) {
  switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += quote ? "&quot;" : "\"";
      break;
    default:
      out += c;
  }
}

inline std::string html_escaped(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) put_html_escaped(out, c, quote);
  return out;
}

}  // namespace sigil::channels
