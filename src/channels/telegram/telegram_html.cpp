#include "sigil/channels/telegram/telegram_html.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "channels/html_escape.h"
#include "channels/html_markdown_walk.h"
#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"
#include "sigil/text/utf8.h"

namespace sigil::channels::telegram {
namespace {

// The href Telegram links to as written, or "" when it would not: Telegram keeps http(s) and tg links, takes
// "www.…" as http, drops a relative or ftp/javascript link and mangles mailto: into "http://mailto:…/".
std::string telegram_link(std::string_view href) {
  if (text::ascii::istarts_with(href, "http://") || text::ascii::istarts_with(href, "https://") ||
      text::ascii::istarts_with(href, "tg://"))
    return std::string(href);
  if (text::ascii::istarts_with(href, "www.")) return "http://" + std::string(href);
  return {};
}

// The spans Telegram shows with a tag of their own whatever they hold.
constexpr HtmlMarkdownWalk::Tag kTags[] = {
    {MD_SPAN_EM, "<i>", "</i>"},
    {MD_SPAN_STRONG, "<b>", "</b>"},
    {MD_SPAN_DEL, "<s>", "</s>"},
    {MD_SPAN_U, "<u>", "</u>"},
};

// Telegram keeps a link or a code span, never both: in a link, code is shown as the link's text.
class Renderer final : public HtmlMarkdownWalk {
 public:
  Renderer() : HtmlMarkdownWalk({.bullet = "• ", .bold_open = "<b>", .bold_close = "</b>"}, kTags, false) {}
  std::string run(std::string_view markdown) {
    if (!walk(markdown)) return escape_telegram_html(markdown);  // md4c gives up only on memory exhaustion
    return trimmed();
  }

 private:
  void line_break() override { out_ += '\n'; }
  void enter_quote() override {
    if (quote_depth_++ == 0) out_ += "<blockquote>";
  }
  void leave_quote() override {
    while (!out_.empty() && out_.back() == '\n') out_.pop_back();
    if (--quote_depth_ == 0) out_ += "</blockquote>";
    fresh_ = false;
  }
  void enter_heading(unsigned /*level*/) override { out_ += "<b>"; }
  void leave_heading() override { out_ += "</b>"; }
  void enter_code(const std::string& lang) override {
    code_lang_ = !lang.empty();
    out_ += code_lang_ ? "<pre><code class=\"language-" + lang + "\">" : std::string("<pre>");
    code_start_ = out_.size();
  }
  void leave_code() override {
    if (out_.size() > code_start_ && out_.back() == '\n') out_.pop_back();
    out_ += code_lang_ ? "</code></pre>" : "</pre>";
  }

  std::string escaped(std::string_view s) const override { return escape_telegram_html(s); }
  std::string shown_ref(std::string_view ref) const override {
    if (ref == "&lt;" || ref == "&gt;" || ref == "&amp;" || ref == "&quot;")
      return std::string(ref);  // its own
    if (std::string decoded; text::decode_char_ref(ref, decoded)) return escape_telegram_html(decoded);
    return escape_telegram_html(ref);
  }
  std::string link_url(std::string_view href) const override {
    return escape_telegram_html(telegram_link(href), true);
  }
  // Not a link Telegram keeps: its text, then where it pointed unless the text says it already (an e-mail
  // address, which Telegram links by itself).
  std::string shown_target(std::string_view href) const override {
    return escape_telegram_html(text::ascii::istarts_with(href, "mailto:") ? href.substr(7) : href);
  }

  bool code_lang_ = false;
  std::size_t code_start_ = 0;
};

}  // namespace

std::string escape_telegram_html(std::string_view text, bool attribute) {
  return html_escaped(text, attribute);
}

std::string render_telegram_html(std::string_view markdown) { return Renderer().run(markdown); }

std::size_t telegram_visible_units(std::string_view html) {
  std::string visible;
  visible.reserve(html.size());
  for (std::size_t i = 0; i < html.size();) {
    const char c = html[i];
    if (c == '<') {
      const std::size_t close = html.find('>', i);
      if (close == std::string_view::npos) break;
      i = close + 1;
    } else if (c == '&') {
      const std::size_t semi = html.find(';', i);
      const std::string_view ref =
          semi == std::string_view::npos ? html.substr(i, 1) : html.substr(i, semi - i + 1);
      if (ref == "&lt;" || ref == "&gt;" || ref == "&amp;" || ref == "&quot;") {
        visible += 'x';
        i += ref.size();
      } else if (text::decode_char_ref(ref, visible)) {
        i += ref.size();
      } else {
        visible += c;
        ++i;
      }
    } else {
      visible += c;
      ++i;
    }
  }
  return text::utf16_length(visible);
}

}  // namespace sigil::channels::telegram
