#include "server/published_page.h"

#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::server {
namespace {

constexpr std::string_view kPageCsp =
    "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; script-src 'none'; "
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";
constexpr std::string_view kPageCspScripts =
    "sandbox allow-scripts; default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; "
    "script-src 'unsafe-inline'; connect-src 'none'; form-action 'none'; frame-ancestors 'none'; "
    "base-uri 'none'; object-src 'none'";

constexpr std::string_view kPragma = "http-equiv";

bool pragma_at(std::string_view s, std::size_t i) { return text::ascii::istarts_with(s.substr(i), kPragma); }

}  // namespace

std::string_view published_page_csp(bool scripts_allowed) {
  return scripts_allowed ? kPageCspScripts : kPageCsp;
}

std::string published_page_html(std::string_view html) {
  std::string utf8;
  if (!text::is_valid_utf8(html)) {
    text::Utf8Sanitizer sanitizer;
    auto append = [&utf8](std::string_view piece) { utf8.append(piece); };
    sanitizer.feed(html, append);
    sanitizer.finish(append);
    html = utf8;
  }
  std::string out;
  out.reserve(html.size());
  for (std::size_t i = 0; i < html.size(); ++i) {
    if ((html[i] == 'h' || html[i] == 'H') && pragma_at(html, i)) {
      out += "data-";
      out.append(html.substr(i, kPragma.size()));
      i += kPragma.size() - 1;
      continue;
    }
    out += html[i];
  }
  return out;
}

}  // namespace sigil::server
