#include "sigil/channels/matrix/matrix_html.h"

#include <cstddef>
#include <string>

#include "channels/chat_markdown_walk.h"
#include "channels/html_escape.h"
#include "channels/html_markdown_walk.h"
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

constexpr HtmlMarkdownWalk::Tag kTags[] = {
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

class HtmlRenderer final : public HtmlMarkdownWalk {
 public:
  HtmlRenderer()
      : HtmlMarkdownWalk({.bullet = kBullet, .bold_open = "<strong>", .bold_close = "</strong>"}, kTags,
                         true) {}
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
    out_ += lang.empty() ? std::string("<pre><code>")
                         : "<pre><code class=\"language-" + escape_html(lang) + "\">";
    in_pre_ = true;
    code_start_ = out_.size();
  }
  void leave_code() override {
    if (out_.size() > code_start_ && out_.back() == '\n') out_.pop_back();
    out_ += "</code></pre>";
    in_pre_ = false;
  }

  std::string escaped(std::string_view s) const override { return escape_html(s); }
  std::string shown_ref(std::string_view ref) const override { return escape_html(decoded_ref(ref)); }
  std::string link_url(std::string_view href) const override { return escape_html(matrix_link(href)); }
  // Not a link Matrix keeps: its text, then where it pointed unless the text says it already.
  std::string shown_target(std::string_view href) const override { return escape_html(href); }

  bool in_pre_ = false;
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

std::string escape_html(std::string_view text) { return html_escaped(text, true); }

MatrixText render_matrix_text(std::string_view markdown) {
  return {PlainRenderer().run(markdown), HtmlRenderer().run(markdown)};
}

}  // namespace sigil::channels::matrix
