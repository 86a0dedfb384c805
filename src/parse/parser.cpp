// The streaming recognizer: one pass over the reply, one byte state machine, a few bounded buffers.
//
// Layout of the work (the input side is parser_input.cpp, the state parser_impl.h):
// - stage 1 (text/stage1.h) -> consume(): ordinary text is skipped in bulk up to the next `<` or `[`;
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
#include <optional>

#include "parser_impl.h"
#include "sigil/parse/json_lenient.h"
#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"

namespace sigil::parse {

namespace {

bool has_non_ws(std::string_view s) {
  for (char ch : s)
    if (!is_markup_space(ch)) return true;
  return false;
}

class NullSink final : public TextSink {
 public:
  void clean_text(std::string_view) override {}
};

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Setup

Parser::Impl::Impl(const CompiledGrammar& grammar, EventSink& sink, ParserOptions options)
    : grammar_(grammar.grammar()),
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
  std::size_t spellings = 0;
  for (const TagName& t : names_.tags)
    spellings = std::max(spellings, static_cast<std::size_t>(t.spelling + 1));
  for (const BracketName& b : names_.brackets)
    spellings = std::max(spellings, static_cast<std::size_t>(b.spelling + 1));
  denied_.assign(spellings, false);
  for (const std::string& action : opt_.denied_actions) {
    if (action == "mcp") deny_mcp_ = true;
    for (int s : grammar_.spellings_of(action))
      if (s >= 0 && static_cast<std::size_t>(s) < denied_.size()) denied_[static_cast<std::size_t>(s)] = true;
  }
  for (const TagName& t : names_.tags)
    if (t.role == TagRole::Say) say_name_ = text::ascii::to_lower(t.name);
  if (opt_.say_mode) say_.emplace(hidden_out_, visible_, opt_.whitespace_limit);
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
      c_.bracket = opener_.index();
      c_.args_begin = c_.held.size();
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
      c_.bracket = opener_.index();
      c_.has_args = false;
      c_.args_begin = c_.args_end = c_.held.size() - 1;
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

void Parser::Impl::reset_construct() {
  std::string held = std::move(c_.held);
  std::vector<Attribute> attrs = std::move(c_.attrs);
  c_ = Construct{};
  held.clear();
  attrs.clear();
  c_.held = std::move(held);
  c_.attrs = std::move(attrs);
}

void Parser::Impl::begin_construct(Kind kind, std::uint64_t begin, std::string_view held,
                                   std::uint64_t clean_offset, const text::CodeTracker::State& code,
                                   bool line_start) {
  reset_construct();
  c_.kind = kind;
  c_.begin = begin;
  c_.held.assign(held);
  c_.clean_offset = clean_offset;
  c_.code_at_begin = code;
  c_.line_start = line_start;
}

void Parser::Impl::begin_from_opener(Kind kind) {
  begin_construct(kind, opener_.start_offset(), opener_bytes_, opener_clean_offset_, opener_code_,
                  opener_line_start_);
  opener_bytes_.clear();
  if (kind == Kind::OpenTag) {
    c_.tag = opener_.index();
    c_.mcp_server = opener_.mcp_server();
    if (c_.mcp_server >= 0) c_.mcp_tool = std::string(opener_.mcp_tool());
    c_.name = opener_.name();
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
      c_.tag = opener_.index();
      c_.mcp_server = opener_.mcp_server();
      if (c_.mcp_server >= 0) c_.mcp_tool = std::string(opener_.mcp_tool());
      c_.name = opener_.name();
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
      c_.bracket = opener_.index();
      c_.args_begin = c_.held.size();
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
// Open tags

void Parser::Impl::open_tag_byte(unsigned char c, const Ctx& ctx, bool fence) {
  if (fence) {  // a fence line abandons an open tag spread over lines; the line is code
    c_.held += static_cast<char>(c);
    release_all();
    return;
  }
  if (c_.held.size() >= opt_.tag_limit) {
    diag("tag-too-long", input_offset(c_.begin), "an open tag reached its limit and was released as text");
    release_all();
    text_byte(c, ctx);
    return;
  }
  const bool quoted = tag_.in_quoted_value();
  const OpenTagScan::Result r = tag_.step(c);
  if (r == OpenTagScan::Result::Reject) {
    release_all();
    text_byte(c, ctx);
    return;
  }
  c_.held += static_cast<char>(c);
  if (r == OpenTagScan::Result::Complete) {
    opener_.reset();
    complete_open_tag();
    return;
  }
  // Inside quotes nothing triggers (2.8); elsewhere `[NAME:` in an unquoted value does (`<` is rejected).
  if (!quoted && !tag_.in_quoted_value()) {
    OpenerScan::Kind k = run_trigger(c, ctx);
    trigger(k, c, ctx);
  } else {
    opener_.reset();
  }
}

void Parser::Impl::complete_open_tag() {
  const bool mcp = c_.tag < 0;
  const TagName* t = mcp ? nullptr : &names_.tags[static_cast<std::size_t>(c_.tag)];
  tag_.take_attributes_into(c_.attrs);
  c_.self_closing = tag_.self_closing();
  const TagRole role = mcp ? TagRole::Action : t->role;
  const BodyKind body = mcp ? BodyKind::Json : t->body;
  const std::uint64_t end = c_.begin + c_.held.size();
  switch (role) {
    case TagRole::Hidden:
      if (only_removed_ || c_.self_closing) {
        const std::uint64_t begin = c_.begin;
        const auto code = c_.code_at_begin;
        const bool self_closing = c_.self_closing;
        reset_construct();
        if (self_closing) {
          removed_markup(code);
        } else {
          enter_hidden(begin, code);
        }
      } else if (c_.line_start) {
        c_.kind = Kind::HiddenWait;
        c_.tag_end = c_.held.size();
        c_.hw_content = false;
        hidden_scan_.reset();
      } else {
        std::string held = std::move(c_.held);
        reset_construct();
        emit_text(held);  // 8.1: elsewhere a hidden-region tag is text
      }
      return;
    case TagRole::Sentinel: {
      const auto code = c_.code_at_begin;
      const std::uint64_t begin = c_.begin;
      std::string name = c_.self_closing ? std::string() : c_.name;
      reset_construct();
      removed_markup(code);
      silence_by_tag(begin);
      none_close_name_ = std::move(name);  // `<no-reply></no-reply>`
      return;
    }
    case TagRole::Wrapper: {
      const auto code = c_.code_at_begin;
      const bool self_closing = c_.self_closing;
      reset_construct();
      removed_markup(code);
      window_open_ = !self_closing;
      return;
    }
    case TagRole::Say: {
      const auto code = c_.code_at_begin;
      const std::uint64_t begin = c_.begin;
      const bool self_closing = c_.self_closing;
      const int spelling = t->spelling;
      reset_construct();
      if (!opt_.say_mode || interrupted_) {
        if (opt_.say_mode && interrupted_)
          diag("interrupted-say", input_offset(begin),
               "a say block after an interrupting directive was not delivered");
        removed_markup(code);
      } else if (in_say_block_) {
        diag("nested-say", input_offset(begin), "a say tag inside a say block was removed");
        removed_markup(code);
      } else if (self_closing) {
        diag("empty-say", input_offset(begin), "an empty say block was dropped");
        removed_markup(code);
      } else {
        removed_markup(code);
        say_spelling_ = spelling;
        say_begin_ = begin;
        start_say_block();
      }
      return;
    }
    case TagRole::Action:
      break;
  }
  if (body == BodyKind::None || c_.self_closing) {
    if (body == BodyKind::None && !c_.self_closing && c_.attrs.empty() && t->has_required_params) {
      std::string held = std::move(c_.held);
      reset_construct();
      emit_text(held);  // 2.4: `I can react with <react>.` is text
      return;
    }
    Validated v = validate_construct(Body{});
    const auto code = c_.code_at_begin;
    const int spelling = mcp ? -1 : t->spelling;
    const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
    std::string name = (body == BodyKind::None && !c_.self_closing) ? c_.name : std::string();
    reset_construct();
    code_.restore(code);
    code_.mark_line_content();
    directive(spelling, {}, std::move(v), begin, end, clean);
    none_close_name_ = std::move(name);
    return;
  }
  enter_body(body);
}

void Parser::Impl::enter_body(BodyKind body) {
  c_.body_begin = c_.held.size();
  c_.line_begin = c_.held.size();
  close_.set_name(c_.name);
  const TagName* t = c_.tag >= 0 ? &names_.tags[static_cast<std::size_t>(c_.tag)] : nullptr;
  switch (body) {
    case BodyKind::Text:
    case BodyKind::Path:
      c_.kind = Kind::TextBody;
      c_.single_line = t != nullptr && t->single_line;
      return;
    case BodyKind::Markup:
      c_.kind = Kind::MarkupBody;
      return;
    case BodyKind::Json:
      c_.kind = Kind::JsonStart;
      return;
    default:
      c_.kind = Kind::TextBody;
      return;
  }
}

Validated Parser::Impl::validate_construct(const Body& body) {
  if (c_.tag < 0)
    return grammar_.validate_mcp(names_.mcp_servers[static_cast<std::size_t>(c_.mcp_server)], c_.mcp_tool,
                                 c_.attrs, body);
  return grammar_.validate_tag(names_.tags[static_cast<std::size_t>(c_.tag)].spelling, c_.attrs, body);
}

// ---------------------------------------------------------------------------------------------------------
// Text, path and markup bodies

static std::size_t body_limit_of(const NameIndex& names, int tag) {
  return tag >= 0 ? names.tags[static_cast<std::size_t>(tag)].body_limit : names.mcp_body_limit;
}

void Parser::Impl::text_body_byte(unsigned char c, const Ctx& ctx, bool fence) {
  if (fence) {  // the fence line is code; the body so far is text (2.8)
    c_.held += static_cast<char>(c);
    release_all();
    return;
  }
  if (c_.held.size() - c_.body_begin >= body_limit_of(names_, c_.tag)) {
    diag("body-too-long", input_offset(c_.begin), "a body reached its limit and was released as text");
    release_all();
    text_byte(c, ctx);
    return;
  }
  const bool closing = close_.in_progress();
  if (close_.step(c, c_.held.size())) {
    c_.held += static_cast<char>(c);
    opener_.reset();
    complete_text_body(close_.begin(), c_.held.size());
    return;
  }
  // Failure rules (2.8).
  if (c == '\n' && c_.single_line && !(closing && close_.in_progress())) {
    release_all();
    text_byte(c, ctx);
    return;
  }
  const TagName* t = c_.tag >= 0 ? &names_.tags[static_cast<std::size_t>(c_.tag)] : nullptr;
  if (t != nullptr && t->body == BodyKind::Path) {
    if (c == '\n') {
      c_.line_has_content = false;
    } else if (!is_markup_space(c) && !c_.line_has_content) {
      if (c_.nonblank_lines == 1) {
        if (c != '<') {  // a second non-blank line
          release_all();
          text_byte(c, ctx);
          return;
        }
        c_.second_line_lt = true;  // unless it is the close tag: judged once the tag resolves
      }
      c_.nonblank_lines = 1;
      c_.line_has_content = true;
    }
  }
  c_.held += static_cast<char>(c);
  if (c_.first_nonws == npos && !is_markup_space(c)) c_.first_nonws = c_.held.size() - 1;
  using K = OpenerScan::Kind;
  const K k = run_trigger(c, ctx);
  if (k == K::TagOpen && !opener_.is_mcp() && opener_.name() == c_.name &&
      c_.first_nonws == static_cast<std::size_t>(opener_.start_offset() - c_.begin)) {
    // 2.5: a repeated opening tag with only whitespace before it counts once, with its own attributes.
    diag("repeated-tag", input_offset(opener_.start_offset()), "a repeated opening tag counted once");
    c_.held.pop_back();
    c_.kind = Kind::OpenTag;
    c_.attrs.clear();
    c_.first_nonws = npos;
    tag_.start();
    open_tag_byte(c, ctx, false);
    return;
  }
  if (k == K::CloseTag && (opener_.is_mcp() || opener_.name() != c_.name)) {
    // 2.4: a close tag of another registered name ends the body there, then counts as in ordinary text.
    const std::uint64_t close_begin = opener_.start_offset();
    const int idx = opener_.index();
    const bool mcp = opener_.is_mcp();
    const auto code = trigger_code_;
    const std::size_t body_end = static_cast<std::size_t>(close_begin - c_.begin);
    complete_text_body(body_end, body_end);
    trigger_code_ = code;
    close_tag_in_text(idx, mcp, close_begin);
    return;
  }
  if (trigger(k, c, ctx)) return;
  if (c_.second_line_lt && !close_.in_progress() && !opener_.active()) {
    release_all();  // the second line was not the close tag: a second non-blank line fails a path body
  }
}

void Parser::Impl::complete_text_body(std::size_t body_end, std::size_t span_end, Ending ending) {
  const TagName* t = c_.tag >= 0 ? &names_.tags[static_cast<std::size_t>(c_.tag)] : nullptr;
  std::string_view raw = std::string_view(c_.held).substr(c_.body_begin, body_end - c_.body_begin);
  Body body;
  if (c_.kind == Kind::MarkupBody) {
    body.kind = Body::Kind::Text;
    body.text = std::string(raw);
  } else {
    std::string_view trimmed = text::ascii::trim(raw, is_markup_space);
    const bool json_spelling = t == nullptr || t->body == BodyKind::Json;
    if (!(json_spelling && trimmed.empty())) {  // an empty json body means {} (5.1)
      body.kind = Body::Kind::Text;
      body.text = text::decode_char_refs(trimmed);
    }
  }
  Validated v = validate_construct(body);
  const int spelling = t != nullptr ? t->spelling : -1;
  const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
  const auto code = c_.code_at_begin;
  reset_construct();
  opener_.reset();
  close_.reset();
  code_.restore(code);
  code_.mark_line_content();
  directive(spelling, {}, std::move(v), begin, begin + span_end, clean, false, ending);
}

void Parser::Impl::markup_body_byte(unsigned char c) {
  if (close_.step(c, c_.held.size())) {
    c_.held += static_cast<char>(c);
    complete_text_body(close_.begin(), c_.held.size());
    return;
  }
  if (c_.held.size() - c_.body_begin >= body_limit_of(names_, c_.tag)) {
    diag("body-too-long", input_offset(c_.begin), "a markup body passed its limit: invalid, removed");
    c_.kind = Kind::JsonDrop;  // drop up to the close tag, like an oversized JSON body (5.5)
    return;
  }
  c_.held += static_cast<char>(c);
}

// ---------------------------------------------------------------------------------------------------------
// JSON bodies

void Parser::Impl::json_start_byte(unsigned char c, const Ctx& ctx, bool fence) {
  switch (c_.kind) {
    case Kind::JsonStart:
      if (c_.lt_pending) {
        if (close_.step(c, c_.held.size())) {  // an empty body: {} (5.1)
          c_.held += static_cast<char>(c);
          complete_text_body(c_.body_begin, c_.held.size());
          return;
        }
        if (close_.in_progress()) {
          c_.held += static_cast<char>(c);
          return;
        }
        // Not the close tag: the body is text (5.2). Read it again from the `<` as such.
        std::string again = c_.held.substr(c_.lt_index);
        again += static_cast<char>(c);
        const std::uint64_t lt_pos = c_.lt_pos;
        const auto lt_code = c_.lt_code;
        const bool lt_line_ws = c_.lt_line_ws;
        if (c_.first_newline != npos) {  // a line break fails a body read as text (2.8)
          std::string held = std::move(c_.held);
          const std::size_t cut = c_.first_newline, lt = c_.lt_index;
          const std::uint64_t begin = c_.begin;
          reset_construct();
          diag("abandoned", input_offset(begin), "unfinished markup was released as text");
          emit_text(std::string_view(held).substr(0, cut));
          emit_text(std::string_view(held).substr(cut, lt - cut));
        } else {
          c_.held.resize(c_.lt_index);
          c_.kind = Kind::TextBody;
          c_.single_line = true;
          c_.lt_pending = false;
        }
        close_.reset();
        opener_.reset();
        code_.restore(lt_code);
        line_ws_only_ = lt_line_ws;
        const std::uint64_t here = pos_;
        replay(again, lt_pos);
        pos_ = here;
        return;
      }
      if (c == '<') {
        c_.lt_pending = true;
        c_.lt_index = c_.held.size();
        c_.lt_pos = pos_;
        c_.lt_code = pre_step_;
        c_.lt_line_ws = ctx.line_ws_only;
        close_.step(c, c_.held.size());
        c_.held += static_cast<char>(c);
        return;
      }
      if (is_markup_space(c)) {
        if (c == '\n' && c_.first_newline == npos) c_.first_newline = c_.held.size();
        c_.held += static_cast<char>(c);
        return;
      }
      if (c == '{' || c == '[') return begin_json_value(c);
      if (c == '`' || c == '~') {
        c_.kind = Kind::JsonFence;
        c_.fence_line_begin = c_.held.size();
        c_.held += static_cast<char>(c);
        if (fence) c_.kind = Kind::JsonFenceLine;
        return;
      }
      return json_becomes_text(c, ctx, fence);
    case Kind::JsonFence:
      if (fence) {
        c_.kind = Kind::JsonFenceLine;
        c_.held += static_cast<char>(c);
        return;
      }
      if (c == static_cast<unsigned char>(c_.held[c_.fence_line_begin])) {
        c_.held += static_cast<char>(c);
        return;
      }
      return json_becomes_text(c, ctx, fence);
    case Kind::JsonFenceLine:
      c_.held += static_cast<char>(c);
      if (c == '\n') c_.kind = Kind::JsonAfterFence;
      return;
    case Kind::JsonAfterFence:
      if (is_markup_space(c)) {
        c_.held += static_cast<char>(c);
        return;
      }
      if (c == '{' || c == '[') return begin_json_value(c);
      // Not JSON after all, so the body is text, and its fence line abandoned it (2.8): the fence is code.
      {
        std::string held = std::move(c_.held);
        const std::size_t cut = c_.fence_line_begin;
        const std::uint64_t begin = c_.begin;
        reset_construct();
        std::size_t line = held.rfind('\n', cut == 0 ? 0 : cut - 1);
        line = (line == npos || cut == 0) ? cut : line + 1;
        diag("abandoned", input_offset(begin), "unfinished markup was released as text");
        emit_text(std::string_view(held).substr(0, line));
        emit_text(std::string_view(held).substr(line));
        text_byte(c, ctx);
      }
      return;
    default:
      return;
  }
}

// The body starts with `{` or `[` (after whitespace or a fence line): it is JSON (5.1).
void Parser::Impl::begin_json_value(unsigned char c) {
  c_.kind = Kind::JsonBody;
  json_.reset();
  c_.json_line_ws = false;
  json_.step(c);
  c_.held += static_cast<char>(c);
}

// The body does not start with `{` or `[`: it is the spelling's body parameter under the text rules (5.2),
// and a line break fails it (2.8).
void Parser::Impl::json_becomes_text(unsigned char c, const Ctx& ctx, bool fence) {
  if (c_.first_newline != npos) {
    const std::size_t cut = c_.first_newline;
    const std::uint64_t begin = c_.begin;
    std::string held = std::move(c_.held);
    reset_construct();
    diag("abandoned", input_offset(begin), "unfinished markup was released as text");
    emit_text(std::string_view(held).substr(0, cut));
    emit_text(std::string_view(held).substr(cut));
    text_byte(c, ctx);
    return;
  }
  c_.kind = Kind::TextBody;
  c_.single_line = true;
  // Backticks already held opened an inline span in the shadow machine; the body goes on from here.
  for (std::size_t i = c_.body_begin; i < c_.held.size(); ++i)
    if (!is_markup_space(c_.held[i]) && c_.first_nonws == npos) c_.first_nonws = i;
  text_body_byte(c, ctx, fence);
}

void Parser::Impl::json_body_byte(unsigned char c, const Ctx& ctx, bool fence) {
  (void)fence;
  if (c_.held.size() - c_.body_begin >= body_limit_of(names_, c_.tag)) {
    diag("body-too-long", input_offset(c_.begin), "a JSON body passed its limit: invalid, removed");
    c_.kind = Kind::JsonDrop;
    close_.reset();
    json_drop_byte(c);
    return;
  }
  // 5.4: a close tag inside a `"` string opened on the same line is content; anywhere else it ends the body.
  bool closed = false;
  if (c == '<' && json_.close_tag_is_content()) {
    close_.reset();
  } else {
    closed = close_.step(c, c_.held.size());
  }
  if (closed) {
    c_.held += static_cast<char>(c);
    complete_json(close_.begin(), c_.held.size(), false);
    return;
  }
  // 5.4: an incomplete value and a line that cannot continue it: the body ends before that line.
  if (c_.json_line_ws && !is_markup_space(c) && !json_.line_start_acceptable(c)) {
    const std::size_t line = c_.line_begin;
    std::string tail = c_.held.substr(line);
    complete_json(line, line, true);
    emit_text(tail);
    const Ctx again = restep_text_after_body(tail, c, ctx);
    text_byte(c, again);
    return;
  }
  if (c == '\n') {
    c_.json_line_ws = true;
    c_.line_begin = c_.held.size() + 1;
  } else if (!is_markup_space(c)) {
    c_.json_line_ws = false;
  }
  const JsonScanner::Step st = json_.step(c);
  c_.held += static_cast<char>(c);
  if (st == JsonScanner::Step::ValueEnd) {
    c_.after_value = true;
    c_.value_end = c_.held.size();
    c_.tail_fence = 0;
  }
}

void Parser::Impl::json_after_value_byte(unsigned char c, const Ctx& ctx) {
  const bool was_closing = close_.in_progress();
  if (close_.step(c, c_.held.size())) {
    c_.held += static_cast<char>(c);
    complete_json(close_.begin(), c_.held.size(), false);
    return;
  }
  if (was_closing && (c == '<' || !close_.in_progress())) {
    // Not our close tag after all: the body ended at its value, and from the `<` on it is ordinary text,
    // read again from the shadow state before that `<`.
    const std::size_t lt = c_.lt_index;
    std::string again = c_.held.substr(lt);
    again += static_cast<char>(c);
    const std::uint64_t lt_pos = c_.lt_pos;
    const bool lt_line_ws = c_.lt_line_ws;
    std::string tail = c_.held.substr(c_.value_end, lt - c_.value_end);
    complete_json(c_.value_end, c_.value_end, true);
    emit_text(tail);
    code_.feed(tail);  // the body is removed markup: the shadow machine goes on from its start
    line_ws_only_ = lt_line_ws;
    const std::uint64_t here = pos_;
    replay(again, lt_pos);
    pos_ = here;  // on_byte() moves past this byte
    return;
  }
  if (close_.in_progress() && c != '<') {
    c_.held += static_cast<char>(c);
    return;
  }
  if (c == '<') {
    c_.lt_index = c_.held.size();
    c_.lt_pos = pos_;
    c_.lt_line_ws = ctx.line_ws_only;
    c_.held += static_cast<char>(c);
    return;
  }
  if (c_.tail_fence == 1) {
    if (c == static_cast<unsigned char>(c_.held[c_.fence_line_begin])) {
      ++c_.tail_run;
      c_.held += static_cast<char>(c);
      return;
    }
    if (c_.tail_run < 3) return end_json_at_value(c, ctx);
    c_.tail_fence = 2;  // a closing fence line (5.4): the rest of its line goes with it
  }
  if (c_.tail_fence == 2) {
    c_.held += static_cast<char>(c);
    if (c == '\n') c_.tail_fence = 3;
    return;
  }
  if (is_markup_space(c)) {
    c_.held += static_cast<char>(c);
    return;
  }
  if (c_.tail_fence == 0 && (c == '`' || c == '~') && ctx.line_ws_only) {
    c_.tail_fence = 1;
    c_.tail_run = 1;
    c_.fence_line_begin = c_.held.size();
    c_.held += static_cast<char>(c);
    return;
  }
  if (c_.tail_fence == 0 && (c == ',' || c == '{' || c == '[')) {
    // 5.4: several values in a row, optionally separated by commas.
    const JsonScanner::Step st = json_.step(c);
    c_.held += static_cast<char>(c);
    if (st == JsonScanner::Step::ValueStart) {
      c_.after_value = false;
      c_.json_line_ws = false;
    }
    return;
  }
  end_json_at_value(c, ctx);
}

// Something else follows a complete value: the directive counts, and what follows is ordinary text (5.4).
void Parser::Impl::end_json_at_value(unsigned char c, const Ctx& ctx) {
  std::string tail = c_.held.substr(c_.value_end);
  complete_json(c_.value_end, c_.value_end, true);
  emit_text(tail);
  const Ctx again = restep_text_after_body(tail, c, ctx);
  text_byte(c, again);
}

// complete_json() rewound the shadow machine to the body's start (the body is removed markup); the bytes
// after the body are ordinary text, so they and the current byte are stepped again from there.
Parser::Impl::Ctx Parser::Impl::restep_text_after_body(std::string_view tail, unsigned char c,
                                                       const Ctx& ctx) {
  code_.feed(tail);
  Ctx again{code_.in_code(), ctx.line_ws_only};
  if (c == '<' || c == '[') pre_step_ = code_.snapshot();
  code_.step(c);
  return again;
}

void Parser::Impl::complete_json(std::size_t json_end, std::size_t span_end, bool unclosed, Ending ending) {
  std::string_view text = std::string_view(c_.held).substr(c_.body_begin, json_end - c_.body_begin);
  std::vector<LenientResult> values = parse_lenient_sequence(text);
  const TagName* t = c_.tag >= 0 ? &names_.tags[static_cast<std::size_t>(c_.tag)] : nullptr;
  const int spelling = t != nullptr ? t->spelling : -1;
  const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
  const auto code = c_.code_at_begin;
  if (unclosed) diag("unclosed", input_offset(begin), "the JSON body's close tag never came");
  std::vector<Validated> results;
  for (std::size_t i = 0; i < values.size(); ++i) {
    LenientResult& r = values[i];
    Body body;
    if (r.ok) {
      body.kind = Body::Kind::Json;
      body.json = std::move(r.value);
      if (!r.repairs.empty()) {
        std::string list;
        for (const std::string& rep : r.repairs) list += (list.empty() ? "" : ", ") + rep;
        diag("json-repaired", input_offset(begin), "JSON repaired: " + list);
      }
    } else {
      body.kind = Body::Kind::JsonError;
      body.error = r.error;
    }
    if (i > 0)
      diag("extra-value", input_offset(begin), "another JSON value in the same body: one more directive");
    results.push_back(validate_construct(body));
  }
  reset_construct();
  opener_.reset();
  close_.reset();
  code_.restore(code);
  code_.mark_line_content();
  for (Validated& v : results)
    directive(spelling, {}, std::move(v), begin, begin + span_end, clean, false, ending);
}

void Parser::Impl::json_drop_byte(unsigned char c) {
  if (close_.step(c, 0)) complete_oversized(pos_ + 1);
}

// A JSON or markup body past its limit (5.5): listed invalid with nothing parsed, its bytes removed.
void Parser::Impl::complete_oversized(std::uint64_t end) {
  Validated v;
  if (c_.tag < 0) {
    Body none;
    none.kind = Body::Kind::JsonError;
    v = validate_construct(none);  // MCP: {server, tool, arguments: {}}
  }
  v.valid = false;
  const TagName* t = c_.tag >= 0 ? &names_.tags[static_cast<std::size_t>(c_.tag)] : nullptr;
  const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
  const auto code = c_.code_at_begin;
  reset_construct();
  close_.reset();
  code_.restore(code);
  code_.mark_line_content();
  directive(t != nullptr ? t->spelling : -1, {}, std::move(v), begin, end, clean, false, Ending::TooLong);
}

// ---------------------------------------------------------------------------------------------------------
// Brackets

void Parser::Impl::bracket_byte(unsigned char c, const Ctx& ctx, bool fence) {
  if (fence) {
    c_.held += static_cast<char>(c);
    release_all();
    return;
  }
  if (c_.held.size() - c_.args_begin >= opt_.bracket_limit) {
    diag("bracket-too-long", input_offset(c_.begin),
         "bracket arguments reached their limit: released as text");
    release_all();
    text_byte(c, ctx);
    return;
  }
  if (c == '\n') {
    if (c_.br_newline_seen && c_.br_line_ws) {  // a blank line (3.2)
      release_all();
      text_byte(c, ctx);
      return;
    }
    c_.br_newline_seen = true;
    c_.br_line_ws = true;
  } else if (!is_markup_space(c)) {
    c_.br_line_ws = false;
  }
  c_.held += static_cast<char>(c);
  const OpenerScan::Kind k = run_trigger(c, ctx);
  if (trigger(k, c, ctx)) return;
  if (c == '[') {
    ++c_.depth;
  } else if (c == ']') {
    if (c_.depth == 0) {
      c_.kind = Kind::BracketEnd;
      c_.args_end = c_.held.size() - 1;
      opener_.reset();
    } else {
      --c_.depth;
    }
  }
}

void Parser::Impl::bracket_end_byte(unsigned char c, const Ctx& ctx) {
  if (c == '(') {  // 3.4: a Markdown link
    std::string held = std::move(c_.held);
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
  const BracketName& b = names_.brackets[static_cast<std::size_t>(c_.bracket)];
  const std::size_t args_end = c_.kind == Kind::BracketEnd ? c_.args_end : c_.held.size();
  std::string_view args = std::string_view(c_.held).substr(c_.args_begin, args_end - c_.args_begin);
  Validated v = grammar_.validate_bracket(b.spelling, args, c_.has_args);
  const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
  const std::uint64_t end = begin + (c_.kind == Kind::BracketEnd ? args_end + 1 : c_.held.size());
  reset_construct();
  opener_.reset();
  directive(b.spelling, {}, std::move(v), begin, end, clean, false, ending);
}

// ---------------------------------------------------------------------------------------------------------
// Comments and CDATA (2.7): removed whole; nothing inside counts; only their limit abandons them.

void Parser::Impl::comment_byte(unsigned char c, const Ctx& ctx) {
  if (c_.held.size() >= opt_.tag_limit) {
    diag("comment-too-long", input_offset(c_.begin), "a comment reached its limit and was released as text");
    release_all();
    text_byte(c, ctx);
    return;
  }
  c_.held += static_cast<char>(c);
  const std::size_t opener = c_.kind == Kind::Comment ? 4 : 9;
  std::string_view end_mark = c_.kind == Kind::Comment ? "-->" : "]]>";
  const std::string& h = c_.held;
  if (h.size() >= opener + 3 && c == '>' && std::string_view(h).substr(h.size() - 3) == end_mark) {
    const auto code = c_.code_at_begin;
    reset_construct();
    removed_markup(code);
  }
}

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
  if (c == '<') {
    OpenerScan::Options o;
    o.trigger_mode = true;
    o.tag_limit = opt_.tag_limit;
    hidden_scan_.start(c, pos_, o);
  }
}

// A line-start hidden opener mid-reply (8.1): it opens a region if a line break follows (spaces before it
// allowed) or its close tag stands later on the same line. Returns false when the wait ended without a
// region and the byte must be read as ordinary text (the held bytes were replayed).
bool Parser::Impl::hidden_wait_byte(unsigned char c) {
  using K = OpenerScan::Kind;
  if (!c_.hw_content) {
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
    c_.hw_content = true;
  }
  if (c != '\n' && c_.held.size() - c_.tag_end < opt_.hidden_opener_limit) {
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
    if (c == '<') {
      OpenerScan::Options o;
      o.trigger_mode = true;
      o.tag_limit = opt_.tag_limit;
      hidden_scan_.start(c, pos_, o);
    }
    return true;
  }
  // The line ended (or the wait hit its limit) without a close tag: the opener is text, and what followed
  // it is read as ordinary text.
  std::string held = std::move(c_.held);
  const std::size_t tag_end = c_.tag_end;
  const std::uint64_t begin = c_.begin;
  reset_construct();
  hidden_scan_.reset();
  emit_text(std::string_view(held).substr(0, tag_end));
  const std::uint64_t here = pos_;
  replay(std::string_view(held).substr(tag_end), begin + tag_end);
  pos_ = here;
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Results

void Parser::Impl::diag(std::string code, std::uint64_t offset, std::string message) {
  ++stats_.diagnostics;
  sink_.on_diagnostic(Diagnostic{std::move(code), offset, std::move(message)});
}

void Parser::Impl::directive(int spelling, std::string action, Validated v, std::uint64_t begin,
                             std::uint64_t end, std::uint64_t clean_offset, bool is_say, Ending ending) {
  none_close_name_.clear();
  DirectiveEvent e;
  e.action =
      spelling >= 0 ? grammar_.spelling(spelling).action : (action.empty() ? std::string("mcp") : action);
  e.args = std::move(v.args);
  e.valid = v.valid;
  e.error = std::move(v.error);
  e.span_begin = input_offset(begin);
  e.span_end = input_offset(end);
  e.clean_offset = clean_offset;
  e.spelling = spelling;
  for (Note& note : v.notes) diag(std::move(note.code), e.span_begin, std::move(note.message));
  if (!e.valid) diag("invalid-directive", e.span_begin, e.error);
  const bool interrupting = spelling >= 0 && grammar_.spelling(spelling).interrupts;
  const bool denied = spelling >= 0 ? (static_cast<std::size_t>(spelling) < denied_.size() &&
                                       denied_[static_cast<std::size_t>(spelling)])
                                    : deny_mcp_;
  // A refusal is why the directive will not run, so its reason replaces a validation error; the first
  // refusal is the one reported in `error`, every one gets a diagnostic.
  bool refused = false;
  auto refuse = [&](const char* code, const char* why) {
    if (!refused) {
      e.valid = false;
      e.error = e.action + ": " + why;
      refused = true;
    }
    diag(code, e.span_begin, e.action + ": " + why);
  };
  switch (ending) {
    case Ending::Complete:
      break;
    case Ending::CutOff:
      refuse("cut-off", "cut off: the reply ended before this directive was complete");
      break;
    case Ending::Unclosed:
      refuse("unclosed-body", "its body never closed");
      break;
    case Ending::TooLong:
      refuse("body-too-long", "its body is over the size limit");
      break;
  }
  if (!is_say) {
    // 12.2: after an interrupting directive only a chain of valid interrupting ones, separated by
    // whitespace alone, still runs.
    if (interrupted_ && !(chain_open_ && interrupting && e.valid && !denied)) {
      chain_open_ = false;
      refuse("after-interrupt", "after an interrupting directive");
    }
    if (++counted_directives_ > opt_.max_directives) refuse("over-limit", "over the per-reply limit");
  }
  if (denied) refuse("not-allowed", "not allowed here");
  e.interrupts = e.valid && interrupting;
  if (e.valid && !is_say) any_valid_directive_ = true;
  ++stats_.directives;
  sink_.on_directive(e);
  if (!is_say) {
    std::optional<std::string> inline_text;
    if (e.valid && spelling >= 0 && opt_.inline_resolver && grammar_.spelling(spelling).inline_result)
      inline_text = opt_.inline_resolver(e);
    if (inline_text && !inline_text->empty()) {
      emit_text(*inline_text);  // 10.2: the result takes the directive's place; its surroundings stay
    } else {
      gap(GapKind::Directive);
    }
  }
  if (e.interrupts && !interrupted_) start_interrupt(end);
}

void Parser::Impl::silence_by_tag(std::uint64_t offset) {
  if (interrupted_ || silent_by_tag_) return;
  silent_by_tag_ = true;
  main_judge_.suppress();
  if (say_) {
    say_->hidden_judge.suppress();
    say_->say_judge.suppress();
  }
  if (visible_count() > 0)
    diag("late-sentinel", input_offset(offset), "a sentinel came after text had been shown");
  if (!silence_reported_) {
    silence_reported_ = true;
    sink_.on_silence(input_offset(offset));
  }
}

// The block and the interruption end where the directive ends, not at the byte being read: a bracket is
// final only one byte after its `]` (or at a held lead byte, a U+FFFD, the end), and that byte's input
// offset may not be known yet (the sanitizer may still hold it), so it would depend on chunking.
void Parser::Impl::start_interrupt(std::uint64_t end) {
  if (in_say_block_) end_say_block(end);
  finish_text();
  interrupted_ = true;
  interrupt_pos_ = end;
  chain_open_ = true;
}

void Parser::Impl::start_say_block() {
  in_say_block_ = true;
  say_clean_offset_ = visible_count();
  block_tidy_.emplace(say_->joiner, opt_.whitespace_limit);
  say_->joiner.begin_block();
}

void Parser::Impl::end_say_block(std::uint64_t end) {
  block_tidy_->finish();
  in_say_block_ = false;
  say_->hidden_tidy.gap(GapKind::Other);
  const std::string text = say_->joiner.block_text();
  if (text.empty()) {
    diag("empty-say", input_offset(say_begin_), "an empty say block was dropped");
    return;
  }
  // A block that alone would silence a reply is a sentinel, not a message (say-049).
  NullSink null;
  SentinelLines alone(null);
  alone.clean_text(text);
  alone.finish();
  if (alone.silent()) {
    diag("sentinel-say", input_offset(say_begin_), "a say block holding a sentinel was not listed");
    any_say_block_ = true;  // it still counts as a say block: no fallback (6.5)
    return;
  }
  Body body;
  body.kind = Body::Kind::Text;
  body.text = text;
  Validated v = grammar_.validate_tag(say_spelling_, {}, body);
  any_say_block_ = true;
  directive(say_spelling_, "say", std::move(v), say_begin_, end, say_clean_offset_, true);
}

void Parser::Impl::finish_text() {
  if (text_finished_) return;
  text_finished_ = true;
  if (!opt_.say_mode) {
    main_tidy_.finish();
    main_judge_.finish();
  } else {
    say_->hidden_tidy.finish();
    say_->hidden_judge.finish();
    say_->say_judge.finish();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The end of the reply (11.6)

void Parser::Impl::end_constructs(FinishReason reason) {
  const bool cut = reason == FinishReason::Length;
  for (int guard = 0; guard < 1000; ++guard) {
    if (mode_ == Mode::Hidden) return;
    switch (c_.kind) {
      case Kind::None:
        if (opener_.active() && in_say_block_ && opener_.partial_close_of(say_name_)) {
          // The say block's own close tag, partly written: it ends the block (eos-041).
          opener_bytes_.clear();
          opener_.reset();
          removed_markup(opener_code_);
          return;
        }
        if (opener_.active()) {
          std::string bytes = std::move(opener_bytes_);
          opener_bytes_.clear();
          const bool lone = opener_.lone_start();
          const std::uint64_t begin = opener_.start_offset();
          opener_.reset();
          if (cut && !lone) {
            diag("cut-off", input_offset(begin), "an unfinished opener at a cut-off end was removed");
            removed_markup(code_.snapshot());
          } else {
            emit_text(bytes);
          }
        }
        return;
      case Kind::OpenTag:
        if (cut) {
          diag("cut-off", input_offset(c_.begin), "an unfinished tag at a cut-off end was removed");
          const auto code = c_.code_at_begin;
          reset_construct();
          removed_markup(code);
        } else {
          release_all();
        }
        return;
      case Kind::TextBody:
      case Kind::MarkupBody: {
        const bool markup = c_.kind == Kind::MarkupBody;
        const bool partial_close = close_.in_progress();
        const std::size_t body_end = partial_close ? close_.begin() : c_.held.size();
        if (partial_close && !cut) {
          complete_text_body(body_end, c_.held.size());
        } else if (cut || markup) {
          complete_text_body(body_end, c_.held.size(), cut ? Ending::CutOff : Ending::Unclosed);
        } else {
          release_all();
        }
        return;
      }
      case Kind::JsonStart:
      case Kind::JsonFence:
      case Kind::JsonFenceLine:
      case Kind::JsonAfterFence: {
        // An empty body means {} (5.1).
        const bool partial_close = c_.lt_pending && close_.in_progress();
        if (!partial_close && has_non_ws(std::string_view(c_.held).substr(c_.body_begin)) &&
            c_.kind != Kind::JsonFenceLine && c_.kind != Kind::JsonAfterFence) {
          if (cut) {
            complete_text_body(c_.held.size(), c_.held.size(), Ending::CutOff);
          } else {
            release_all();
          }
          return;
        }
        Validated v = validate_construct(Body{});
        const TagName* t = c_.tag >= 0 ? &names_.tags[static_cast<std::size_t>(c_.tag)] : nullptr;
        const std::uint64_t begin = c_.begin, clean = c_.clean_offset, end = c_.begin + c_.held.size();
        const auto code = c_.code_at_begin;
        reset_construct();
        code_.restore(code);
        code_.mark_line_content();
        directive(t != nullptr ? t->spelling : -1, {}, std::move(v), begin, end, clean, false,
                  cut ? Ending::CutOff : Ending::Complete);
        return;
      }
      case Kind::JsonBody: {
        // The close tag never came: the body is what was read, repaired (stop) or refused (length).
        const std::size_t end = c_.after_value ? c_.value_end : c_.held.size();
        complete_json(end, c_.held.size(), true, cut ? Ending::CutOff : Ending::Complete);
        return;
      }
      case Kind::JsonDrop:
        complete_oversized(pos_);
        return;
      case Kind::Bracket:
        if (cut) {
          complete_bracket(Ending::CutOff);
        } else {
          release_all();
        }
        return;
      case Kind::BracketEnd:
        complete_bracket_here();
        return;
      case Kind::Comment:
      case Kind::Cdata: {
        diag("unclosed-comment", input_offset(c_.begin), "a comment never closed: removed");
        const auto code = c_.code_at_begin;
        reset_construct();
        removed_markup(code);
        return;
      }
      case Kind::HiddenWait: {
        std::string held = std::move(c_.held);
        const std::size_t tag_end = c_.tag_end;
        const std::uint64_t begin = c_.begin;
        reset_construct();
        hidden_scan_.reset();
        emit_text(std::string_view(held).substr(0, tag_end));
        const std::uint64_t here = pos_;
        replay(std::string_view(held).substr(tag_end), begin + tag_end);
        pos_ = here;
        continue;  // the replay may have left something pending
      }
    }
  }
}

void Parser::Impl::finish(FinishReason reason) {
  if (finished_) return;
  utf8_.finish([this](std::string_view piece) { consume_piece(piece); });
  if (utf8_noted_ > kUtf8NotesShown)
    diag("invalid-utf8", input_offset(pos_),
         std::to_string(utf8_noted_) + " ill-formed UTF-8 sequences in all became U+FFFD");
  end_constructs(reason);
  if (mode_ == Mode::Hidden) {
    diag("unclosed-hidden", input_offset(hidden_begin_), "a hidden region never closed: it hides the rest");
    mode_ = Mode::Text;
    gap(GapKind::Other);
  }
  if (in_say_block_) end_say_block(pos_);
  finish_text();
  bool silent = silent_by_tag_;
  bool fallback = false;
  if (opt_.say_mode) {
    fallback = !any_say_block_ && !any_valid_directive_ && !silent_by_tag_;
    if (!silent) {
      SentinelLines& judge = fallback ? say_->hidden_judge : say_->say_judge;
      silent = judge.silent();
      if (silent && judge.decided_late())
        diag("late-sentinel", input_offset(pos_), "a sentinel line came after text had been shown");
    }
    if (silent && !silence_reported_) {
      silence_reported_ = true;
      sink_.on_silence(input_offset(pos_));
    }
    if (fallback) {
      diag("no-say-block", 0, "say mode without a say block: the clean text is delivered");
      sink_.on_fallback();
    }
  } else if (!silent && main_judge_.silent()) {
    // The line rules (7.3) judge the whole clean text, so their silence is reported where the reply ended:
    // a place that does not depend on how the reply was chunked. (The judge already withheld the text.)
    silent = true;
    if (main_judge_.decided_late())
      diag("late-sentinel", input_offset(pos_), "a sentinel line came after text had been shown");
    silence_reported_ = true;
    sink_.on_silence(input_offset(pos_));
  }
  finished_ = true;
  sink_.on_end(silent);
}

// ---------------------------------------------------------------------------------------------------------

CompiledGrammar::CompiledGrammar(const Grammar& grammar)
    : grammar_(&grammar), names_(std::make_shared<const NameIndex>(grammar)) {}

Parser::Parser(const CompiledGrammar& grammar, EventSink& sink, ParserOptions options)
    : impl_(std::make_unique<Impl>(grammar, sink, std::move(options))) {}
Parser::Parser(const Grammar& grammar, EventSink& sink, ParserOptions options)
    : own_grammar_(std::make_unique<CompiledGrammar>(grammar)),
      impl_(std::make_unique<Impl>(*own_grammar_, sink, std::move(options))) {}
Parser::~Parser() = default;
void Parser::feed(std::string_view chunk) { impl_->feed(chunk); }
void Parser::finish(FinishReason reason) { impl_->finish(reason); }
const ParserStats& Parser::stats() const { return impl_->stats(); }
bool Parser::admit_directive() { return impl_->admit_directive(); }

}  // namespace sigil::parse
