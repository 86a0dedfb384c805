// Hidden regions (spec section 8): `<think>` and its kind, from the start of the reply or from a line start.
#include "parser_impl.h"

namespace sigil::parse {

// ---------------------------------------------------------------------------------------------------------
// Hidden regions (section 8)

void Parser::Impl::enter_hidden(std::uint64_t begin, const text::CodeTracker::State& code) {
  code_.restore(code);
  mode_ = Mode::Hidden;
  hidden_begin_ = begin;
  hidden_scan_.reset();
}

void Parser::Impl::hidden_byte(unsigned char c) {
  using K = OpenerScan::Kind;
  if (hidden_scan_.active()) {
    const K k = hidden_scan_.step(c);
    if (k == K::CloseTag && !hidden_scan_.is_mcp() &&
        names_.tags[static_cast<std::size_t>(hidden_scan_.index())].role == TagRole::Hidden) {
      mode_ = Mode::Text;
      code_.mark_line_content();
      line_ws_only_ = false;
      gap(GapKind::Other);
      return;
    }
    if (k == K::Pending) return;
    hidden_scan_.reset();
  }
  if (c == '<') start_hidden_close_scan(c);
}

// A line-start hidden opener mid-reply (8.1): it opens a region if a line break follows (spaces before it
// allowed) or its close tag stands later on the same line. Returns false when the wait ended without a
// region and the byte must be read as ordinary text (the held bytes were replayed).
bool Parser::Impl::hidden_wait_byte(unsigned char c) {
  using K = OpenerScan::Kind;
  if (!cs_.wait().content) {
    if (c == '\n') {
      const std::uint64_t begin = c_.begin;
      const auto code = c_.code_at_begin;
      reset_construct();
      enter_hidden(begin, code);
      return true;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      c_.held += static_cast<char>(c);
      return true;
    }
    cs_.wait().content = true;
  }
  if (c != '\n' && c_.held.size() - cs_.wait().tag_end < opt_.hidden_opener_limit) {
    c_.held += static_cast<char>(c);
    if (hidden_scan_.active()) {
      const K k = hidden_scan_.step(c);
      if (k == K::CloseTag && !hidden_scan_.is_mcp() &&
          names_.tags[static_cast<std::size_t>(hidden_scan_.index())].role == TagRole::Hidden) {
        const auto code = c_.code_at_begin;
        reset_construct();
        hidden_scan_.reset();
        removed_markup(code);
        return true;
      }
      if (k == K::Pending) return true;
      hidden_scan_.reset();
    }
    if (c == '<') start_hidden_close_scan(c);
    return true;
  }
  // The line ended (or the wait hit its limit) without a close tag: the opener is text, and what followed
  // it is read as ordinary text.
  release_hidden_wait();
  return false;
}

void Parser::Impl::start_hidden_close_scan(unsigned char c) {
  OpenerScan::Options o;
  o.trigger_mode = true;
  o.tag_limit = opt_.tag_limit;
  hidden_scan_.start(c, pos_, o);
}

void Parser::Impl::release_hidden_wait() {
  std::string held = std::move(c_.held);
  const std::size_t tag_end = cs_.wait().tag_end;
  const std::uint64_t begin = c_.begin;
  reset_construct();
  hidden_scan_.reset();
  emit_text(std::string_view(held).substr(0, tag_end));
  const std::uint64_t here = pos_;
  replay(std::string_view(held).substr(tag_end), begin + tag_end);
  pos_ = here;
}

}  // namespace sigil::parse
