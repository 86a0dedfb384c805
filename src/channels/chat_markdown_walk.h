// What the Discord and Slack renderers (discord_markdown, slack_mrkdwn) share beyond markdown_walk.h: both
// chats quote with a "> " line prefix and fence code blocks with ```, gather a code span's or block's text
// before showing it, and write a link's text before they know how the link is to be shown.
//
// What it promises:
// - line_break() continues an open quote on the next line ("> "); put() writes text whose line breaks do so.
// - enter_quote() opens the outermost quote on a line of its own (line_start() is the renderer's say);
//   leave_quote() drops the empty quoted lines the outermost quote's last block left.
// - open_fence(lang) writes "```" and lang, then a line break, and gathers the text into code_ until
//   close_fence(shown), which writes `shown` (with a zero-width space keeping any "```" in it from ending
//   the block), a line break and "```". code_block() is code_ without the block's last line break.
// - open_code_span() gathers a code span's text into code_ (the renderer shows it on leaving the span).
// - gathered(s) is true, having kept s in code_, while a code block or span is open.
// - open_link() notes the link's href and where its text starts; link_raw_ is the renderer's to fill with
//   the text as written, and is_autolink() says whether that text was the URL itself.
#pragma once

#include <md4c.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "channels/markdown_walk.h"

namespace sigil::channels {

class ChatMarkdownWalk : public MarkdownWalk {
 protected:
  using MarkdownWalk::MarkdownWalk;

  // Whether the next character written starts a line: each chat counts a quote's prefix its own way.
  virtual bool line_start() const = 0;

  void line_break() override {
    out_ += '\n';
    if (quote_depth_ > 0) out_ += "> ";
  }
  void put(std::string_view s) {
    for (char c : s) {
      if (c == '\n')
        line_break();
      else
        out_ += c;
    }
  }
  void enter_quote() override {
    if (quote_depth_++ == 0) {
      if (!line_start()) line_break();
      out_ += "> ";
    }
  }
  void leave_quote() override {
    if (--quote_depth_ == 0) {
      while (out_.size() >= 3 && out_.compare(out_.size() - 3, 3, "\n> ") == 0) out_.resize(out_.size() - 3);
    }
  }

  void open_fence(std::string_view lang) {
    out_ += "```";
    out_ += lang;
    line_break();
    in_code_block_ = true;
    code_.clear();
  }
  std::string code_block() {
    if (!code_.empty() && code_.back() == '\n') code_.pop_back();
    return code_;
  }
  void close_fence(std::string shown) {
    for (std::size_t at = 0; (at = shown.find("```", at)) != std::string::npos; at += 2)
      shown.insert(at + 1, "\xE2\x80\x8B");  // U+200B ZERO WIDTH SPACE
    in_code_block_ = false;
    put(shown);
    line_break();
    out_ += "```";
  }
  void open_code_span() {
    in_code_span_ = true;
    code_.clear();
  }
  bool gathered(std::string_view s) {
    if (!in_code_block_ && !in_code_span_) return false;
    code_ += s;
    return true;
  }

  void open_link(void* detail) {
    link_href_ = attribute(static_cast<const MD_SPAN_A_DETAIL*>(detail)->href);
    link_raw_.clear();
    in_link_ = true;
    link_text_start_ = out_.size();
  }
  // An autolink's text is its URL (md4c adds the scheme to "www." links and "mailto:" to addresses).
  bool is_autolink() const {
    return link_raw_ == link_href_ || "http://" + link_raw_ == link_href_ ||
           "mailto:" + link_raw_ == link_href_;
  }

  bool in_code_block_ = false, in_code_span_ = false;
  std::string code_;
  bool in_link_ = false;
  std::string link_href_, link_raw_;
  std::size_t link_text_start_ = 0;
};

}  // namespace sigil::channels
