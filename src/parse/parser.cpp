// The streaming recognizer: one pass over the reply, one byte state machine, a few bounded buffers.
//
// Layout of the work (the input side is parser_input.cpp, the state parser_impl.h and construct_state.h;
// each construct in its own file: tag_construct.cpp, json_construct.cpp, bracket_construct.cpp,
// comment_construct.cpp, hidden_region.cpp, say_block.cpp; results in parser_results.cpp, the end of the
// reply in parser_end.cpp, reset() in parser_reset.cpp; this file: setup, ordinary text and what all
// constructs share):
// - stage 1 (text/stage1.h) -> consume(): ordinary text is skipped in bulk up to the next `<` or `[`;
// - stage 2 (whole_markup.cpp): an open tag, close tag or bracket lying whole in the piece is read in place
//   and handed to the same completion code, leaving the byte machine's state as if it had read it;
// - on_byte(): every other byte steps the code tracker (the "shadow" ordinary-text machine of 2.8) once,
//   then the state of the pending construct, if any;
// - released text -> Tidier (section 10) -> SentinelLines (7.3) -> sink.
// At most one speculative construct is pending at a time (the parser never nests them: an opener inside
// one is a trigger that abandons it, 2.8). Its bytes are held in `c_.held` until it completes (removed) or
// is abandoned (released as text, never matched again).
//
// Bytes are read a second time only in two bounded cases, both counted in stats().bytes_replayed:
// a line-start hidden-region opener that turns out to be text (at most hidden_opener_limit bytes), and a
// `<` after a complete JSON value that turns out not to be the body's close tag (at most a tag name).
#include "sigil/parse/parser.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>

#include "parser_impl.h"
#include "sigil/text/ascii.h"

namespace sigil::parse {

// ---------------------------------------------------------------------------------------------------------
// Setup

Parser::Impl::Impl(const CompiledGrammar& grammar, EventSink& sink, ParserOptions&& options)
    : compiled_(grammar),
      grammar_(grammar.grammar()),
      sink_(sink),
      opt_(std::move(options)),
      names_(grammar.names()),
      kernel_(opt_.stage1_kernel.value_or(text::stage1::best_kernel())),
      visible_(sink, false, stats_),
      hidden_out_(sink, true, stats_),
      main_judge_(visible_),
      main_tidy_(main_judge_, opt_.whitespace_limit),
      opener_(names_),
      hidden_scan_(names_) {
  // The judge's set never changes, so the shadow tracker is given it once (ordinary_run() hands its list of
  // line breaks to the judge).
  code_.plain_line_starts(main_judge_.line_killers());
  if (!opt_.denied_actions.empty()) {  // else denied_ stays empty: nothing is denied (a parser per reply)
    std::size_t spellings = 0;
    for (const TagName& t : names_.tags)
      spellings = std::max(spellings, static_cast<std::size_t>(t.spelling + 1));
    for (const BracketName& b : names_.brackets)
      spellings = std::max(spellings, static_cast<std::size_t>(b.spelling + 1));
    denied_.assign(spellings, false);
  }
  for (const std::string& action : opt_.denied_actions) {
    if (action == "mcp") deny_mcp_ = true;
    for (int s : grammar_.spellings_of(action))
      if (s >= 0 && static_cast<std::size_t>(s) < denied_.size()) denied_[static_cast<std::size_t>(s)] = true;
  }
  if (opt_.say_mode) {  // say blocks exist only in say mode (6.1); a parser per reply skips the name walk
    for (const TagName& t : names_.tags)
      if (t.role == TagRole::Say) say_name_ = text::ascii::to_lower(t.name);
    say_.emplace(hidden_out_, visible_, opt_.whitespace_limit);
  }
  if (opt_.think_open) {
    mode_ = Mode::Hidden;
    hidden_begin_ = 0;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Ordinary text

Tidier& Parser::Impl::tidier() {
  if (!opt_.say_mode) return main_tidy_;
  return in_say_block_ ? *block_tidy_ : say_->hidden_tidy;
}

void Parser::Impl::emit_text(std::string_view s, const text::stage1::MaskView& masks) {
  if (s.empty()) return;
  if ((only_removed_ || window_open_ || chain_open_ || !none_close_name_.empty() ||
       (interrupted_ && !interrupt_text_noted_)) &&
      has_non_ws(s)) {
    only_removed_ = false;
    window_open_ = false;
    chain_open_ = false;
    none_close_name_.clear();
    if (interrupted_ && !interrupt_text_noted_ && !silent_by_tag_) {
      interrupt_text_noted_ = true;
      // Reported at the interruption, which (unlike where a text run starts) does not depend on chunking.
      diag("interrupted-text", input_offset(interrupt_pos_),
           "text after an interrupting directive was not delivered");
    }
  }
  if (interrupted_ || silent_by_tag_) return;
  tidier().text(s, masks);
}

void Parser::Impl::gap(GapKind kind) {
  if (interrupted_ || silent_by_tag_) return;
  tidier().gap(kind);
}

void Parser::Impl::removed_markup(const text::CodeTracker::State& before, GapKind kind) {
  // Removed markup leaves no trace in the code state (a backtick in a removed tag opens nothing), but it
  // stood on the line, so no fence can start there.
  code_.restore(before);
  code_.mark_line_content();
  gap(kind);
}

void Parser::Impl::text_byte(unsigned char c, const Ctx& ctx) {
  if ((c == '<' || c == '[') && !ctx.in_code) {
    start_opener(c, ctx);
    return;
  }
  emit_byte(c);
}

void Parser::Impl::start_opener(unsigned char c, const Ctx& ctx) {
  OpenerScan::Options o;
  o.window_open = window_open_;
  o.at_line_start = ctx.line_ws_only;
  o.tag_limit = opt_.tag_limit;
  opener_.start(c, pos_, o);
  opener_bytes_.assign(1, static_cast<char>(c));
  opener_clean_offset_ = visible_count();
  opener_code_ = pre_step_;
  opener_line_start_ = ctx.line_ws_only;
}

void Parser::Impl::opener_byte(unsigned char c, const Ctx& ctx) {
  using K = OpenerScan::Kind;
  const K k = opener_.step(c);
  switch (k) {
    case K::Pending:
      opener_bytes_ += static_cast<char>(c);
      return;
    case K::NotMarkup: {
      if ((c != '<' && c != '[') || ctx.in_code) {
        // The byte that ruled the opener out is text too: one trip down the clean-text stages, not two
        // (they do not depend on how text is split).
        opener_bytes_ += static_cast<char>(c);
        emit_text(opener_bytes_);
        opener_bytes_.clear();
        return;
      }
      std::string bytes = std::move(opener_bytes_);
      opener_bytes_.clear();
      emit_text(bytes);
      text_byte(c, ctx);
      return;
    }
    case K::TagOpen:
      begin_from_opener(Kind::OpenTag);
      tag_.start();
      open_tag_byte(c, ctx, false);
      return;
    case K::CloseTag: {
      opener_bytes_.clear();
      close_tag_in_text(opener_.index(), opener_.is_mcp(), opener_.start_offset());
      return;
    }
    case K::CommentOpen:
    case K::CdataOpen:
      opener_bytes_ += static_cast<char>(c);
      begin_from_opener(k == K::CommentOpen ? Kind::Comment : Kind::Cdata);
      return;
    case K::BracketOpen:
      opener_bytes_ += static_cast<char>(c);
      begin_from_opener(Kind::Bracket);
      cs_.bracket().bracket = opener_.index();
      cs_.bracket().args_begin = c_.held.size();
      return;
    case K::BracketBare:
      opener_bytes_ += static_cast<char>(c);
      if (names_.brackets[static_cast<std::size_t>(opener_.index())].needs_argument) {
        std::string bytes = std::move(opener_bytes_);
        opener_bytes_.clear();
        emit_text(bytes);  // 3.4: `[NAME]` for an action that needs an argument is text
        return;
      }
      begin_from_opener(Kind::BracketEnd);
      cs_.bracket().bracket = opener_.index();
      cs_.bracket().has_args = false;
      cs_.bracket().args_begin = cs_.bracket().args_end = c_.held.size() - 1;
      return;
    case K::Unregistered:
      opener_bytes_.clear();
      diag("unregistered-tag-removed", input_offset(opener_.start_offset()),
           "an unregistered tag right after <actions> was removed");
      removed_markup(opener_code_);
      return;
    case K::HiddenTrigger:
      return;  // trigger mode only
  }
}

void Parser::Impl::close_tag_in_text(int tag_index, bool is_mcp, std::uint64_t begin) {
  const text::CodeTracker::State before = (c_.kind == Kind::None) ? opener_code_ : trigger_code_;
  TagRole role = is_mcp ? TagRole::Action : names_.tags[static_cast<std::size_t>(tag_index)].role;
  if (role == TagRole::Say && opt_.say_mode && in_say_block_) {
    code_.restore(before);
    code_.mark_line_content();
    end_say_block(pos_ + 1);
    return;
  }
  // 2.4: a `none` tag's own close tag after only whitespace belongs to it; say tags with say mode off and
  // wrapper tags are removable markup in any number. Anything else closes nothing.
  const bool belongs =
      !is_mcp && !none_close_name_.empty() &&
      text::ascii::to_lower(names_.tags[static_cast<std::size_t>(tag_index)].name) == none_close_name_;
  none_close_name_.clear();
  if (role == TagRole::Wrapper) {
    window_open_ = false;
  } else if (!belongs && !(role == TagRole::Say && !opt_.say_mode)) {
    diag("orphan-close-tag", input_offset(begin), "a close tag with nothing open was removed");
  }
  removed_markup(before);
}

// ---------------------------------------------------------------------------------------------------------
// Constructs: shared

void Parser::Impl::begin_construct(Kind kind, std::uint64_t begin, std::string_view held,
                                   std::uint64_t clean_offset, const text::CodeTracker::State& code,
                                   bool line_start) {
  reset_construct();
  c_.kind = kind;
  c_.begin = begin;
  if (!held.empty()) c_.held.assign(held);  // reset_construct() emptied it
  c_.clean_offset = clean_offset;
  c_.code_at_begin = code;
  c_.line_start = line_start;
}

void Parser::Impl::begin_from_opener(Kind kind) {
  begin_construct(kind, opener_.start_offset(), opener_bytes_, opener_clean_offset_, opener_code_,
                  opener_line_start_);
  opener_bytes_.clear();
  if (kind == Kind::OpenTag) {
    cs_.tag().tag = opener_.index();
    cs_.tag().mcp_server = opener_.mcp_server();
    if (cs_.tag().mcp_server >= 0) cs_.tag().mcp_tool = std::string(opener_.mcp_tool());
    cs_.tag().copy_name(opener_.name());
  }
}

void Parser::Impl::release_all() {
  std::string held = std::move(c_.held);
  diag("abandoned", input_offset(c_.begin), "unfinished markup was released as text");
  reset_construct();
  opener_.reset();
  emit_text(held);
}

// Releases held[0, cut) as text and leaves held[cut, end) in c_.held for the caller.
void Parser::Impl::release_prefix(std::size_t cut) {
  std::string released = c_.held.substr(0, cut);
  c_.held.erase(0, cut);
  diag("abandoned", input_offset(c_.begin), "unfinished markup was released as text");
  emit_text(released);
}

void Parser::Impl::start_trigger(unsigned char c, const Ctx& ctx) {
  OpenerScan::Options o;
  o.trigger_mode = true;
  o.at_line_start = ctx.line_ws_only;
  o.tag_limit = opt_.tag_limit;
  opener_.start(c, pos_, o);
  trigger_code_ = pre_step_;
  trigger_line_start_ = ctx.line_ws_only;
}

// Steps the trigger scanner; `c` must already be in c_.held. Returns what it found (Pending when nothing).
OpenerScan::Kind Parser::Impl::run_trigger(unsigned char c, const Ctx& ctx) {
  using K = OpenerScan::Kind;
  if (opener_.active()) {
    K k = opener_.step(c);
    if (k != K::NotMarkup) return k;
  }
  if ((c == '<' || c == '[') && !ctx.in_code) start_trigger(c, ctx);
  return K::Pending;
}

// An opener found inside the construct abandons it (2.8): the bytes before the opener are released as
// text, and the opener carries on as a construct of its own. `c` is in c_.held (for TagOpen it is the
// delimiter, which the new open tag reads afresh).
bool Parser::Impl::trigger(OpenerScan::Kind k, unsigned char c, const Ctx& ctx) {
  using K = OpenerScan::Kind;
  if (k != K::TagOpen && k != K::CommentOpen && k != K::CdataOpen && k != K::BracketOpen &&
      k != K::HiddenTrigger)
    return false;
  const std::size_t t = static_cast<std::size_t>(opener_.start_offset() - c_.begin);
  release_prefix(t);
  std::string rest = std::move(c_.held);
  const std::uint64_t begin = opener_.start_offset();
  const std::uint64_t clean = visible_count();
  switch (k) {
    case K::TagOpen:
      rest.pop_back();  // the delimiter
      begin_construct(Kind::OpenTag, begin, rest, clean, trigger_code_, trigger_line_start_);
      cs_.tag().tag = opener_.index();
      cs_.tag().mcp_server = opener_.mcp_server();
      if (cs_.tag().mcp_server >= 0) cs_.tag().mcp_tool = std::string(opener_.mcp_tool());
      cs_.tag().copy_name(opener_.name());
      tag_.start();
      open_tag_byte(c, ctx, false);
      return true;
    case K::CommentOpen:
    case K::CdataOpen:
      begin_construct(k == K::CommentOpen ? Kind::Comment : Kind::Cdata, begin, rest, clean, trigger_code_,
                      trigger_line_start_);
      return true;
    case K::BracketOpen:
      begin_construct(Kind::Bracket, begin, rest, clean, trigger_code_, trigger_line_start_);
      cs_.bracket().bracket = opener_.index();
      cs_.bracket().args_begin = c_.held.size();
      return true;
    case K::HiddenTrigger:
      reset_construct();
      enter_hidden(begin, trigger_code_);
      return true;
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------------------

CompiledGrammar::CompiledGrammar(const Grammar& grammar)
    : grammar_(&grammar), names_(std::make_shared<const NameIndex>(grammar)) {}

Parser::Impl& Parser::impl() noexcept {
  static_assert(sizeof(Impl) <= kStateBytes, "Parser::kStateBytes (parser.h) is too small for Parser::Impl");
  static_assert(alignof(Impl) <= alignof(std::max_align_t));
  return *std::launder(reinterpret_cast<Impl*>(state_));
}
const Parser::Impl& Parser::impl() const noexcept {
  return *std::launder(reinterpret_cast<const Impl*>(state_));
}

// The state is built in the parser's own bytes (no allocation); if its constructor throws, nothing was built
// there and the members before it (own_grammar_) are destroyed as usual.
Parser::Parser(const CompiledGrammar& grammar, EventSink& sink, ParserOptions options) {
  ::new (static_cast<void*>(state_)) Impl(grammar, sink, std::move(options));
}
Parser::Parser(const Grammar& grammar, EventSink& sink, ParserOptions options)
    : own_grammar_(std::make_unique<CompiledGrammar>(grammar)) {
  ::new (static_cast<void*>(state_)) Impl(*own_grammar_, sink, std::move(options));
}
Parser::~Parser() { impl().~Impl(); }
void Parser::feed(std::string_view chunk) { impl().feed(chunk); }
void Parser::finish(FinishReason reason) { impl().finish(reason); }
void Parser::reset() { impl().reset(); }
const ParserStats& Parser::stats() const { return impl().stats(); }
bool Parser::admit_directive() { return impl().admit_directive(); }

}  // namespace sigil::parse
