#include "sigil/channels/telegram/telegram_html.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "channels/markdown_walk.h"
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
struct TaggedSpan {
  MD_SPANTYPE type;
  const char* open;
  const char* close;
};
constexpr TaggedSpan kTaggedSpans[] = {
    {MD_SPAN_EM, "<i>", "</i>"},
    {MD_SPAN_STRONG, "<b>", "</b>"},
    {MD_SPAN_DEL, "<s>", "</s>"},
    {MD_SPAN_U, "<u>", "</u>"},
};

class Renderer final : public MarkdownWalk {
 public:
  Renderer() : MarkdownWalk({.bullet = "• ", .bold_open = "<b>", .bold_close = "</b>"}) {}
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

  int enter_span(MD_SPANTYPE type, void* detail) override {
    for (const TaggedSpan& t : kTaggedSpans) {
      if (t.type == type) {
        open_span(type, t.open, t.close);
        return 0;
      }
    }
    switch (type) {
      case MD_SPAN_CODE:
        // Telegram keeps a link or a code span, never both: in a link, code is shown as the link's text.
        if (open_link() != nullptr)
          open_span(type, "", "");
        else
          open_span(type, "<code>", "</code>");
        break;
      case MD_SPAN_A: {
        // md4c finds permissive autolinks inside a link's text too; a link in a link is its text.
        std::string href = open_link() != nullptr
                               ? std::string()
                               : attribute(static_cast<const MD_SPAN_A_DETAIL*>(detail)->href);
        if (const std::string url = telegram_link(href); !url.empty())
          open_span(type, "<a href=\"" + escape_telegram_html(url, true) + "\">", "</a>");
        else
          open_span(type, "", "");
        spans_.back().href = std::move(href);
        spans_.back().start = out_.size();
        break;
      }
      default:
        break;
    }
    return 0;
  }

  std::string shown_src(std::string src) const override { return escape_telegram_html(src); }
  int leave_span(MD_SPANTYPE type) override {
    if (type != MD_SPAN_A) {
      close_span(type);
      return 0;
    }
    const Span* link = open_link();
    if (link == nullptr) return 0;
    const bool plain = link->open.empty();
    const std::string href = link->href;
    const std::size_t start = link->start;
    close_span(type);
    // Not a link Telegram keeps: its text, then where it pointed unless the text says it already (an e-mail
    // address, which Telegram links by itself).
    const std::string_view target = text::ascii::istarts_with(href, "mailto:")
                                        ? std::string_view(href).substr(7)
                                        : std::string_view(href);
    if (plain && !target.empty() && out_.compare(start, std::string::npos, escape_telegram_html(target)) != 0)
      out_ += " (" + escape_telegram_html(target) + ")";
    return 0;
  }

  // The inline spans open now, innermost last, so that what md4c reports is always well nested: it can take
  // an emphasis' closer into a permissive autolink (`*see www.example.com*>`), leaving the emphasis open, or
  // report a closer without its opener; Telegram refuses both ("can't parse entities").
  struct Span {
    MD_SPANTYPE type;
    std::string open, close;
    std::string href{};     // a link's target
    std::size_t start = 0;  // where a link's text begins in out_
  };
  void open_span(MD_SPANTYPE type, std::string open, std::string close) {
    out_ += open;
    spans_.push_back(Span{type, std::move(open), std::move(close)});
  }
  // Closes the innermost open span of this type; the spans opened inside it are closed before it and opened
  // again after it. A type that is not open is ignored.
  void close_span(MD_SPANTYPE type) {
    std::size_t at = spans_.size();
    while (at > 0 && spans_[at - 1].type != type) --at;
    if (at == 0) return;
    --at;
    for (std::size_t i = spans_.size(); i-- > at;) out_ += spans_[i].close;
    for (std::size_t i = at + 1; i < spans_.size(); ++i) out_ += spans_[i].open;
    spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(at));
  }
  // No span outlives its block.
  void close_spans() override {
    for (; !spans_.empty(); spans_.pop_back()) out_ += spans_.back().close;
  }
  const Span* open_link() const {
    for (auto it = spans_.rbegin(); it != spans_.rend(); ++it)
      if (it->type == MD_SPAN_A) return &*it;
    return nullptr;
  }

  int text(MD_TEXTTYPE type, std::string_view s) override {
    switch (type) {
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR:
        line_break();
        break;
      case MD_TEXT_ENTITY:
        if (s == "&lt;" || s == "&gt;" || s == "&amp;" || s == "&quot;") {
          out_ += s;  // Telegram's own entities
        } else if (std::string decoded; text::decode_char_ref(s, decoded)) {
          out_ += escape_telegram_html(decoded);
        } else {
          out_ += escape_telegram_html(s);
        }
        break;
      default:
        out_ += escape_telegram_html(s);
        break;
    }
    return 0;
  }

  std::vector<Span> spans_;
  bool code_lang_ = false;
  std::size_t code_start_ = 0;
};

}  // namespace

std::string escape_telegram_html(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
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
        out += attribute ? "&quot;" : "\"";
        break;
      default:
        out += c;
    }
  }
  return out;
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
