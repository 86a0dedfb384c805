// What the HTML renderers (telegram_html, matrix_html) share beyond markdown_walk.h: the inline spans as a
// stack of open tags, so that what md4c reports always comes out well nested (it can take an emphasis'
// closer into a permissive autolink, `*see www.example.com*>`, leaving the emphasis open, or report a closer
// without its opener; a chat's HTML parser refuses both), and links the chat may not keep.
//
// What it promises:
// - enter_span(): a span `tags` (the constructor's) names opens with its tag; a code span with <code>, or,
//   inside a link when code_in_link is false, with no tag (its text is the link's); a link with
//   `<a href="url">` when link_url(href) gives a url, else with no tag. A link inside a link is its text.
// - leave_span() closes the innermost open span of that type; the spans opened inside it are closed before
//   it and opened again after it; a type that is not open is ignored. A link shown without its tag is
//   followed by " (target)", target being shown_target(href), unless that is empty or the link's text says
//   it already.
// - close_spans() closes every open span: no span outlives its block.
// - text(): line breaks through line_break(), a character reference as shown_ref() has it, other text as
//   escaped() has it; an image's src is escaped() too.
#pragma once

#include <md4c.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "channels/markdown_walk.h"

namespace sigil::channels {

class HtmlMarkdownWalk : public MarkdownWalk {
 public:
  // A span the chat shows with a tag of its own whatever it holds.
  struct Tag {
    MD_SPANTYPE type;
    const char* open;
    const char* close;
  };

 protected:
  HtmlMarkdownWalk(Marks marks, std::span<const Tag> tags, bool code_in_link)
      : MarkdownWalk(marks), tags_(tags), code_in_link_(code_in_link) {}

  // Text escaped for the chat's HTML.
  virtual std::string escaped(std::string_view s) const = 0;
  // A character reference (MD_TEXT_ENTITY) as the chat's HTML shows it.
  virtual std::string shown_ref(std::string_view ref) const = 0;
  // The url a link to `href` keeps, escaped for an attribute, or "" when the chat would not keep it.
  virtual std::string link_url(std::string_view href) const = 0;
  // Where a link the chat did not keep pointed, as shown after its text, or "" for nothing.
  virtual std::string shown_target(std::string_view href) const = 0;

  std::string shown_src(std::string src) const final { return escaped(src); }

  int enter_span(MD_SPANTYPE type, void* detail) final {
    for (const Tag& t : tags_) {
      if (t.type == type) {
        open_span(type, t.open, t.close);
        return 0;
      }
    }
    if (type == MD_SPAN_CODE) {
      if (!code_in_link_ && open_link() != nullptr)
        open_span(type, "", "");
      else
        open_span(type, "<code>", "</code>");
    } else if (type == MD_SPAN_A) {
      // md4c finds permissive autolinks inside a link's text too; a link in a link is its text.
      std::string href = open_link() != nullptr
                             ? std::string()
                             : attribute(static_cast<const MD_SPAN_A_DETAIL*>(detail)->href);
      if (const std::string url = link_url(href); !url.empty())
        open_span(type, "<a href=\"" + url + "\">", "</a>");
      else
        open_span(type, "", "");
      spans_.back().href = std::move(href);
      spans_.back().start = out_.size();
    }
    return 0;
  }

  int leave_span(MD_SPANTYPE type) final {
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
    if (!plain) return 0;
    if (const std::string target = shown_target(href);
        !target.empty() && out_.compare(start, std::string::npos, target) != 0)
      out_ += " (" + target + ")";
    return 0;
  }

  void close_spans() final {
    for (; !spans_.empty(); spans_.pop_back()) out_ += spans_.back().close;
  }

  int text(MD_TEXTTYPE type, std::string_view s) final {
    switch (type) {
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR:
        line_break();
        break;
      case MD_TEXT_ENTITY:
        out_ += shown_ref(s);
        break;
      default:
        out_ += escaped(s);
        break;
    }
    return 0;
  }

 private:
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
  void close_span(MD_SPANTYPE type) {
    std::size_t at = spans_.size();
    while (at > 0 && spans_[at - 1].type != type) --at;
    if (at == 0) return;
    --at;
    for (std::size_t i = spans_.size(); i-- > at;) out_ += spans_[i].close;
    for (std::size_t i = at + 1; i < spans_.size(); ++i) out_ += spans_[i].open;
    spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(at));
  }
  const Span* open_link() const {
    for (auto it = spans_.rbegin(); it != spans_.rend(); ++it)
      if (it->type == MD_SPAN_A) return &*it;
    return nullptr;
  }

  std::span<const Tag> tags_;
  bool code_in_link_;
  std::vector<Span> spans_;
};

}  // namespace sigil::channels
