// The XML-tag construct (spec 2.2-2.5): an open tag, then its text, path or markup body up to the close tag.
// A JSON body is json_construct.cpp's; what a tag's role makes of it (sentinel, wrapper, say, hidden) is
// decided here when the tag completes.
#include "parser_impl.h"
#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"

namespace sigil::parse {

namespace {
// The bytes a body run stops at (see body_run), from stage 1's masks or, for a piece without them (one the
// sanitizer rebuilt), from the bytes.
constexpr text::ByteSet kTextBodyStops{"<[\n"};
}  // namespace

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
  TagPart& tp = cs_.tag();  // (one access: each marks the part used)
  const bool mcp = tp.tag < 0;
  const TagName* t = mcp ? nullptr : &names_.tags[static_cast<std::size_t>(tp.tag)];
  tag_.take_attributes_into(tp.attrs);
  tp.self_closing = tag_.self_closing();
  const TagRole role = mcp ? TagRole::Action : t->role;
  const BodyKind body = mcp ? BodyKind::Json : t->body;
  const std::uint64_t end = c_.begin + held_size();
  switch (role) {
    case TagRole::Hidden:
      if (only_removed_ || tp.self_closing) {
        const std::uint64_t begin = c_.begin;
        const auto code = c_.code_at_begin;
        const bool self_closing = tp.self_closing;
        reset_construct();
        if (self_closing) {
          removed_markup(code);
        } else {
          enter_hidden(begin, code);
        }
      } else if (c_.line_start) {
        c_.kind = Kind::HiddenWait;
        cs_.wait().tag_end = c_.held.size();
        cs_.wait().content = false;
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
      std::string name(tp.self_closing ? std::string_view() : tp.name);
      reset_construct();
      removed_markup(code);
      silence_by_tag(begin);
      none_close_name_ = std::move(name);  // `<no-reply></no-reply>`
      return;
    }
    case TagRole::Wrapper: {
      const auto code = c_.code_at_begin;
      const bool self_closing = tp.self_closing;
      reset_construct();
      removed_markup(code);
      window_open_ = !self_closing;
      return;
    }
    case TagRole::Say: {
      const auto code = c_.code_at_begin;
      const std::uint64_t begin = c_.begin;
      const bool self_closing = tp.self_closing;
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
  if (body == BodyKind::None || tp.self_closing) {
    if (body == BodyKind::None && !tp.self_closing && tp.attrs.empty() && t->has_required_params) {
      std::string held = std::move(c_.held);
      reset_construct();
      emit_text(held);  // 2.4: `I can react with <react>.` is text
      return;
    }
    Validated& v = validate_construct(Body{});
    const auto code = c_.code_at_begin;
    const int spelling = mcp ? -1 : t->spelling;
    const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
    std::string name(body == BodyKind::None && !tp.self_closing ? tp.name : std::string_view());
    reset_construct();
    code_.restore(code);
    code_.mark_line_content();
    directive(spelling, {}, v, begin, end, clean);
    none_close_name_ = std::move(name);
    return;
  }
  enter_body(body);
}

void Parser::Impl::enter_body(BodyKind body) {
  BodyPart& b = cs_.body();
  const TagPart& tp = cs_.tag();
  b.body_begin = held_size();
  b.line_begin = b.body_begin;
  close_.set_name(tp.name);
  const TagName* t = tp.tag >= 0 ? &names_.tags[static_cast<std::size_t>(tp.tag)] : nullptr;
  switch (body) {
    case BodyKind::Text:
    case BodyKind::Path:
      c_.kind = Kind::TextBody;
      b.single_line = t != nullptr && t->single_line;
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

// Into the parser's one Validated, so a common directive reuses its storage (Grammar::validate_tag_into).
Validated& Parser::Impl::validate_construct(const Body& body) {
  const TagPart& t = cs_.tag();
  if (t.tag < 0) {
    scratch_ = grammar_.validate_mcp(names_.mcp_servers[static_cast<std::size_t>(t.mcp_server)], t.mcp_tool,
                                     t.attrs, body);
  } else {
    grammar_.validate_tag_into(names_.tags[static_cast<std::size_t>(t.tag)].spelling, t.attrs, body,
                               scratch_);
  }
  return scratch_;
}

// ---------------------------------------------------------------------------------------------------------
// Text, path and markup bodies

void Parser::Impl::text_body_byte(unsigned char c, const Ctx& ctx, bool fence) {
  if (fence) {  // the fence line is code; the body so far is text (2.8)
    c_.held += static_cast<char>(c);
    release_all();
    return;
  }
  if (c_.held.size() - cs_.body().body_begin >= body_limit_of(names_, cs_.tag().tag)) {
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
  if (c == '\n' && cs_.body().single_line && !(closing && close_.in_progress())) {
    release_all();
    text_byte(c, ctx);
    return;
  }
  const TagName* t = cs_.tag().tag >= 0 ? &names_.tags[static_cast<std::size_t>(cs_.tag().tag)] : nullptr;
  if (t != nullptr && t->body == BodyKind::Path) {
    if (c == '\n') {
      cs_.body().line_has_content = false;
    } else if (!is_markup_space(c) && !cs_.body().line_has_content) {
      if (cs_.body().nonblank_lines == 1) {
        if (c != '<') {  // a second non-blank line
          release_all();
          text_byte(c, ctx);
          return;
        }
        cs_.body().second_line_lt = true;  // unless it is the close tag: judged once the tag resolves
      }
      cs_.body().nonblank_lines = 1;
      cs_.body().line_has_content = true;
    }
  }
  c_.held += static_cast<char>(c);
  if (cs_.body().first_nonws == npos && !is_markup_space(c)) cs_.body().first_nonws = c_.held.size() - 1;
  using K = OpenerScan::Kind;
  const K k = run_trigger(c, ctx);
  if (k == K::TagOpen && !opener_.is_mcp() && opener_.name() == cs_.tag().name &&
      cs_.body().first_nonws == static_cast<std::size_t>(opener_.start_offset() - c_.begin)) {
    // 2.5: a repeated opening tag with only whitespace before it counts once, with its own attributes.
    diag("repeated-tag", input_offset(opener_.start_offset()), "a repeated opening tag counted once");
    c_.held.pop_back();
    c_.kind = Kind::OpenTag;
    cs_.tag().attrs.clear();
    cs_.body().first_nonws = npos;
    tag_.start();
    open_tag_byte(c, ctx, false);
    return;
  }
  if (k == K::CloseTag && (opener_.is_mcp() || opener_.name() != cs_.tag().name)) {
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
  if (cs_.body().second_line_lt && !close_.in_progress() && !opener_.active()) {
    release_all();  // the second line was not the close tag: a second non-blank line fails a path body
  }
}

void Parser::Impl::complete_text_body(std::size_t body_end, std::size_t span_end, Ending ending) {
  const TagName* t = cs_.tag().tag >= 0 ? &names_.tags[static_cast<std::size_t>(cs_.tag().tag)] : nullptr;
  std::string_view raw =
      std::string_view(c_.held).substr(cs_.body().body_begin, body_end - cs_.body().body_begin);
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
  Validated& v = validate_construct(body);
  const int spelling = t != nullptr ? t->spelling : -1;
  const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
  const auto code = c_.code_at_begin;
  reset_construct();
  opener_.reset();
  close_.reset();
  code_.restore(code);
  code_.mark_line_content();
  directive(spelling, {}, v, begin, begin + span_end, clean, false, ending);
}

// Stage 2 inside a body: text_body_byte() and markup_body_byte() do nothing with most bytes but hold them,
// so a run of such bytes is appended whole. A text body's byte matters when it is a `<` (its close tag, a
// trigger), a `[` (a trigger), a line break (single-line and path rules, the next line's lead) or a byte of a
// line's lead or of a backtick or tilde run right after it (a fence line abandons the body, 2.8); a markup
// body's only when it is a `<`. The run stops
// before those and at the body limit, and the byte machine reads them as before. The shadow code tracker
// and the line state move over the run in bulk, and the stats count it as stepped bytes would. At a `<` of a
// text body, an open tag that lies whole in s is read in place as the trigger it is (whole_tag).
std::size_t Parser::Impl::body_run(std::string_view piece, std::size_t i,
                                   const text::stage1::MaskView& piece_masks) {
  if (mode_ != Mode::Text || opener_.active() || close_.in_progress()) return 0;
  const bool markup = c_.kind == Kind::MarkupBody;
  if (piece[i] == '<') {
    if (markup || code_.in_code()) return 0;
    return whole_tag(piece, i, piece_masks, true);
  }
  const std::string_view s = piece.substr(i);
  const text::stage1::MaskView masks = piece_masks.sub(i, s.size());
  BodyPart& b = cs_.body();
  if (!markup) {
    // A fence line could still start: in the line's lead, or in a run of backticks or tildes right after it
    // (the tracker is in such a run only when the byte before was its character).
    const char last = held_lag_ != 0 ? held_from_[held_lag_ - 1] : c_.held.back();
    if (code_.at_line_start() || last == '`' || last == '~') return 0;
    const TagName* t = cs_.tag().tag >= 0 ? &names_.tags[static_cast<std::size_t>(cs_.tag().tag)] : nullptr;
    // A path body judges a line's first byte, and a second line that began with `<` at the byte after it.
    if (t != nullptr && t->body == BodyKind::Path && (!b.line_has_content || b.second_line_lt)) return 0;
  }
  const std::size_t used = held_size() - b.body_begin;
  const std::size_t limit = body_limit_of(names_, cs_.tag().tag);
  if (used >= limit) return 0;
  std::size_t n = std::min(s.size(), limit - used);
  if (markup)
    n = std::min(n, masks ? masks.find(text::stage1::kLessThans, 0) : s.find('<'));
  else
    n = std::min(n,
                 masks ? masks.find(text::stage1::kMarkupStartsOrNewlines, 0) : kTextBodyStops.find_first(s));
  if (n == 0) return 0;
  const std::string_view run = s.substr(0, n);
  const text::stage1::MaskView run_masks = masks.sub(0, n);
  // A text body's run holds no line break: mid-line with no backtick, the tracker takes it inline.
  if (markup || !code_.feed_plain(run, run_masks)) code_.feed(run, run_masks);
  // The line state, as on_byte() keeps it (only a markup body's run may hold line breaks).
  std::size_t nl = std::string_view::npos;
  if (markup) nl = run_masks ? run_masks.rfind(text::stage1::kNewlines, n) : run.rfind('\n');
  if (nl != npos || line_ws_only_) run_line_state(run, nl);  // (else it would change nothing)
  if (!markup && b.first_nonws == npos) {
    for (std::size_t k = 0; k < n; ++k)
      if (!is_markup_space(run[k])) {
        b.first_nonws = held_size() + k;
        break;
      }
  }
  // Held in place while the bytes before it are (held_lag_), and copied with them once the piece ends here.
  if (held_lag_ != 0) {
    held_lag_ += n;
    stats_.held_in_place += n;
    if (n == s.size()) settle_held();
  } else {
    c_.held.append(run);
  }
  stats_.bytes_examined += n;
  pos_ += n;
  note_held();
  return n;
}

void Parser::Impl::markup_body_byte(unsigned char c) {
  if (close_.step(c, c_.held.size())) {
    c_.held += static_cast<char>(c);
    complete_text_body(close_.begin(), c_.held.size());
    return;
  }
  if (c_.held.size() - cs_.body().body_begin >= body_limit_of(names_, cs_.tag().tag)) {
    diag("body-too-long", input_offset(c_.begin), "a markup body passed its limit: invalid, removed");
    c_.kind = Kind::JsonDrop;  // drop up to the close tag, like an oversized JSON body (5.5)
    return;
  }
  c_.held += static_cast<char>(c);
}

}  // namespace sigil::parse
