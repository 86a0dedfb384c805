#include "sigil/channels/matrix/matrix_html.h"

#include <cstddef>
#include <string>
#include <vector>

#include "channels/chat_markdown_walk.h"
#include "channels/markdown_walk.h"
#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"

namespace sigil::channels::matrix {
namespace {

constexpr std::string_view kBullet = "\xE2\x80\xA2 ";

// The href as Matrix clients link it, or "" when the spec's subset has no such link (relative links,
// javascript:, …).
std::string matrix_link(std::string_view href) {
  for (std::string_view scheme : {"https://", "http://", "ftp://", "mailto:", "magnet:"})
    if (text::ascii::istarts_with(href, scheme)) return std::string(href);
  return {};
}

struct TaggedSpan {
  MD_SPANTYPE type;
  const char* open;
  const char* close;
};
constexpr TaggedSpan kTaggedSpans[] = {
    {MD_SPAN_EM, "<em>", "</em>"},
    {MD_SPAN_STRONG, "<strong>", "</strong>"},
    {MD_SPAN_DEL, "<del>", "</del>"},
    {MD_SPAN_U, "<u>", "</u>"},
};

// A character reference as the text it stands for (numeric ones and the named ones md4c knows), else as
// written.
std::string decoded_ref(std::string_view s) {
  std::string decoded;
  return text::decode_char_ref(s, decoded) ? decoded : std::string(s);
}

class HtmlRenderer final : public MarkdownWalk {
 public:
  HtmlRenderer() : MarkdownWalk({.bullet = kBullet, .bold_open = "<strong>", .bold_close = "</strong>"}) {}
  std::string run(std::string_view markdown) {
    if (!walk(markdown)) return escape_html(markdown);  // md4c gives up only on memory exhaustion
    std::string out = trimmed();
    while (out.ends_with("<br>")) out.resize(out.size() - 4);
    return out;
  }

 private:
  void line_break() override { out_ += in_pre_ ? "\n" : "<br>"; }
  void enter_quote() override {
    ++quote_depth_;
    out_ += "<blockquote>";
  }
  void leave_quote() override {
    while (out_.ends_with("<br>")) out_.resize(out_.size() - 4);
    --quote_depth_;
    out_ += "</blockquote>";
    fresh_ = false;
  }
  void enter_heading(unsigned /*level*/) override { out_ += "<strong>"; }
  void leave_heading() override { out_ += "</strong>"; }
  void enter_code(const std::string& lang) override {
    code_lang_ = !lang.empty();
    out_ +=
        code_lang_ ? "<pre><code class=\"language-" + escape_html(lang) + "\">" : std::string("<pre><code>");
    in_pre_ = true;
    code_start_ = out_.size();
  }
  void leave_code() override {
    if (out_.size() > code_start_ && out_.back() == '\n') out_.pop_back();
    out_ += "</code></pre>";
    in_pre_ = false;
  }

  int enter_span(MD_SPANTYPE type, void* detail) override {
    for (const TaggedSpan& t : kTaggedSpans) {
      if (t.type == type) {
        open_span(type, t.open, t.close);
        return 0;
      }
    }
    if (type == MD_SPAN_CODE) {
      open_span(type, "<code>", "</code>");
    } else if (type == MD_SPAN_A) {
      // md4c finds permissive autolinks inside a link's text too; a link in a link is its text.
      std::string href = open_link() != nullptr
                             ? std::string()
                             : attribute(static_cast<const MD_SPAN_A_DETAIL*>(detail)->href);
      if (const std::string url = matrix_link(href); !url.empty())
        open_span(type, "<a href=\"" + escape_html(url) + "\">", "</a>");
      else
        open_span(type, "", "");
      spans_.back().href = std::move(href);
      spans_.back().start = out_.size();
    }
    return 0;
  }
  std::string shown_src(std::string src) const override { return escape_html(src); }
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
    // Not a link Matrix keeps: its text, then where it pointed unless the text says it already.
    if (plain && !href.empty() && out_.compare(start, std::string::npos, escape_html(href)) != 0)
      out_ += " (" + escape_html(href) + ")";
    return 0;
  }

  struct Span {
    MD_SPANTYPE type;
    std::string open, close;
    std::string href{};
    std::size_t start = 0;
  };
  void open_span(MD_SPANTYPE type, std::string open, std::string close) {
    out_ += open;
    spans_.push_back(Span{type, std::move(open), std::move(close)});
  }
  // Closes the innermost open span of this type, closing and reopening the spans inside it, so the tags
  // stay nested whatever md4c reports (a closer without its opener is ignored).
  void close_span(MD_SPANTYPE type) {
    std::size_t at = spans_.size();
    while (at > 0 && spans_[at - 1].type != type) --at;
    if (at == 0) return;
    --at;
    for (std::size_t i = spans_.size(); i-- > at;) out_ += spans_[i].close;
    for (std::size_t i = at + 1; i < spans_.size(); ++i) out_ += spans_[i].open;
    spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(at));
  }
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
        out_ += escape_html(decoded_ref(s));
        break;
      default:
        out_ += escape_html(s);
        break;
    }
    return 0;
  }

  std::vector<Span> spans_;
  bool code_lang_ = false, in_pre_ = false;
  std::size_t code_start_ = 0;
};

class PlainRenderer final : public ChatMarkdownWalk {
 public:
  PlainRenderer() : ChatMarkdownWalk({.bullet = kBullet, .bold_open = "", .bold_close = ""}) {}
  std::string run(std::string_view markdown) {
    if (!walk(markdown)) return std::string(markdown);
    return trimmed();
  }

 private:
  bool line_start() const override { return out_.empty() || out_.back() == '\n' || out_.ends_with("\n> "); }
  void enter_heading(unsigned) override {}
  void leave_heading() override {}
  void enter_code(const std::string& lang) override { open_fence(lang); }
  void leave_code() override { close_fence(code_block()); }

  int enter_span(MD_SPANTYPE type, void* detail) override {
    if (in_link_) return 0;
    if (type == MD_SPAN_CODE) open_code_span();
    if (type == MD_SPAN_A) open_link(detail);
    return 0;
  }
  int leave_span(MD_SPANTYPE type) override {
    if (type == MD_SPAN_CODE && in_code_span_) {
      in_code_span_ = false;
      put(code_);
    } else if (type == MD_SPAN_A && in_link_) {
      in_link_ = false;
      if (!is_autolink() && !link_href_.empty() &&
          out_.compare(link_text_start_, std::string::npos, link_href_) != 0)
        out_ += " (" + link_href_ + ")";
    }
    return 0;
  }
  int text(MD_TEXTTYPE type, std::string_view s) override {
    if (gathered(s)) return 0;
    switch (type) {
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR:
        line_break();
        break;
      case MD_TEXT_ENTITY:
        put(decoded_ref(s));
        break;
      default:
        if (in_link_) link_raw_ += s;
        put(s);
        break;
    }
    return 0;
  }
};

}  // namespace

std::string escape_html(std::string_view text) {
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
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

MatrixText render_matrix_text(std::string_view markdown) {
  return {PlainRenderer().run(markdown), HtmlRenderer().run(markdown)};
}

}  // namespace sigil::channels::matrix
