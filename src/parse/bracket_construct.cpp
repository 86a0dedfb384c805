// The bracket construct `[NAME:ARGS]` and `[NAME]` (spec section 3): final one byte after its `]`.
#include "parser_impl.h"

namespace sigil::parse {

// ---------------------------------------------------------------------------------------------------------
// Brackets

void Parser::Impl::bracket_byte(unsigned char c, const Ctx& ctx, bool fence) {
  if (fence) {
    c_.held += static_cast<char>(c);
    release_all();
    return;
  }
  if (c_.held.size() - cs_.bracket().args_begin >= opt_.bracket_limit) {
    diag("bracket-too-long", input_offset(c_.begin),
         "bracket arguments reached their limit: released as text");
    release_all();
    text_byte(c, ctx);
    return;
  }
  if (c == '\n') {
    if (cs_.bracket().newline_seen && cs_.bracket().line_ws) {  // a blank line (3.2)
      release_all();
      text_byte(c, ctx);
      return;
    }
    cs_.bracket().newline_seen = true;
    cs_.bracket().line_ws = true;
  } else if (!is_markup_space(c)) {
    cs_.bracket().line_ws = false;
  }
  c_.held += static_cast<char>(c);
  const OpenerScan::Kind k = run_trigger(c, ctx);
  if (trigger(k, c, ctx)) return;
  if (c == '[') {
    ++cs_.bracket().depth;
  } else if (c == ']') {
    if (cs_.bracket().depth == 0) {
      c_.kind = Kind::BracketEnd;
      cs_.bracket().args_end = c_.held.size() - 1;
      opener_.reset();
    } else {
      --cs_.bracket().depth;
    }
  }
}

void Parser::Impl::bracket_end_byte(unsigned char c, const Ctx& ctx) {
  if (c == '(') {  // 3.4: a Markdown link
    std::string held = std::move(c_.held);
    if (cs_.bracket().inline_size != 0) held.assign(cs_.bracket_inline());  // rare: a copy is fine
    reset_construct();
    emit_text(held);
    text_byte(c, ctx);
    return;
  }
  // The byte after `]` was stepped from the shadow state with the bracket in it; the bracket is removed.
  const auto code = c_.code_at_begin;
  complete_bracket();
  code_.restore(code);
  code_.mark_line_content();
  pre_step_ = code_.snapshot();
  Ctx again{code_.in_code(), ctx.line_ws_only};
  code_.step(c);
  text_byte(c, again);
}

// The bracket directive is final before the next byte is read: it leaves no trace in the shadow machine.
void Parser::Impl::complete_bracket_here() {
  const auto code = c_.code_at_begin;
  complete_bracket();
  code_.restore(code);
  code_.mark_line_content();
}

void Parser::Impl::complete_bracket(Ending ending) {
  const BracketName& b = names_.brackets[static_cast<std::size_t>(cs_.bracket().bracket)];
  // A bracket read whole keeps its bytes in its part (whole_bracket), others in the held string.
  const std::string_view held =
      cs_.bracket().inline_size != 0 ? cs_.bracket_inline() : std::string_view(c_.held);
  const std::size_t args_end = c_.kind == Kind::BracketEnd ? cs_.bracket().args_end : held.size();
  std::string_view args = held.substr(cs_.bracket().args_begin, args_end - cs_.bracket().args_begin);
  grammar_.validate_bracket_into(b.spelling, args, cs_.bracket().has_args, scratch_);
  Validated& v = scratch_;  // reused: no allocation for a common bracket in the steady state
  const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
  const std::uint64_t end = begin + (c_.kind == Kind::BracketEnd ? args_end + 1 : held.size());
  reset_construct();
  opener_.reset();
  directive(b.spelling, {}, v, begin, end, clean, false, ending);
}

}  // namespace sigil::parse
