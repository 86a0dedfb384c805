// The JSON body of a tag (spec 5.1-5.5, MCP 5.6): optional fence lines, one or more values read by the
// JSON scanner, the close tag (or where the body must have ended), then lenient parsing and validation.
#include "parser_impl.h"
#include "sigil/parse/json_lenient.h"

namespace sigil::parse {

// ---------------------------------------------------------------------------------------------------------
// JSON bodies

void Parser::Impl::json_start_byte(unsigned char c, const Ctx& ctx, bool fence) {
  switch (c_.kind) {
    case Kind::JsonStart:
      if (cs_.json().lt_pending) {
        if (close_.step(c, c_.held.size())) {  // an empty body: {} (5.1)
          c_.held += static_cast<char>(c);
          complete_text_body(cs_.body().body_begin, c_.held.size());
          return;
        }
        if (close_.in_progress()) {
          c_.held += static_cast<char>(c);
          return;
        }
        // Not the close tag: the body is text (5.2). Read it again from the `<` as such.
        std::string again = c_.held.substr(cs_.json().lt_index);
        again += static_cast<char>(c);
        const std::uint64_t lt_pos = cs_.json().lt_pos;
        const auto lt_code = cs_.json().lt_code;
        const bool lt_line_ws = cs_.json().lt_line_ws;
        if (cs_.body().first_newline != npos) {  // a line break fails a body read as text (2.8)
          std::string held = std::move(c_.held);
          const std::size_t cut = cs_.body().first_newline, lt = cs_.json().lt_index;
          const std::uint64_t begin = c_.begin;
          reset_construct();
          diag("abandoned", input_offset(begin), "unfinished markup was released as text");
          emit_text(std::string_view(held).substr(0, cut));
          emit_text(std::string_view(held).substr(cut, lt - cut));
        } else {
          c_.held.resize(cs_.json().lt_index);
          c_.kind = Kind::TextBody;
          cs_.body().single_line = true;
          cs_.json().lt_pending = false;
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
        cs_.json().lt_pending = true;
        cs_.json().lt_index = c_.held.size();
        cs_.json().lt_pos = pos_;
        cs_.json().lt_code = pre_step_;
        cs_.json().lt_line_ws = ctx.line_ws_only;
        close_.step(c, c_.held.size());
        c_.held += static_cast<char>(c);
        return;
      }
      if (is_markup_space(c)) {
        if (c == '\n' && cs_.body().first_newline == npos) cs_.body().first_newline = c_.held.size();
        c_.held += static_cast<char>(c);
        return;
      }
      if (c == '{' || c == '[') return begin_json_value(c);
      if (c == '`' || c == '~') {
        c_.kind = Kind::JsonFence;
        cs_.json().fence_line_begin = c_.held.size();
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
      if (c == static_cast<unsigned char>(c_.held[cs_.json().fence_line_begin])) {
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
        const std::size_t cut = cs_.json().fence_line_begin;
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
  cs_.json().json_line_ws = false;
  json_.step(c);
  c_.held += static_cast<char>(c);
}

// The body does not start with `{` or `[`: it is the spelling's body parameter under the text rules (5.2),
// and a line break fails it (2.8).
void Parser::Impl::json_becomes_text(unsigned char c, const Ctx& ctx, bool fence) {
  if (cs_.body().first_newline != npos) {
    const std::size_t cut = cs_.body().first_newline;
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
  cs_.body().single_line = true;
  // Backticks already held opened an inline span in the shadow machine; the body goes on from here.
  for (std::size_t i = cs_.body().body_begin; i < c_.held.size(); ++i)
    if (!is_markup_space(c_.held[i]) && cs_.body().first_nonws == npos) cs_.body().first_nonws = i;
  text_body_byte(c, ctx, fence);
}

void Parser::Impl::json_body_byte(unsigned char c, const Ctx& ctx, bool fence) {
  (void)fence;
  if (c_.held.size() - cs_.body().body_begin >= body_limit_of(names_, cs_.tag().tag)) {
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
  if (cs_.json().json_line_ws && !is_markup_space(c) && !json_.line_start_acceptable(c)) {
    const std::size_t line = cs_.body().line_begin;
    std::string tail = c_.held.substr(line);
    complete_json(line, line, true);
    emit_text(tail);
    const Ctx again = restep_text_after_body(tail, c, ctx);
    text_byte(c, again);
    return;
  }
  if (c == '\n') {
    cs_.json().json_line_ws = true;
    cs_.body().line_begin = c_.held.size() + 1;
  } else if (!is_markup_space(c)) {
    cs_.json().json_line_ws = false;
  }
  const JsonScanner::Step st = json_.step(c);
  c_.held += static_cast<char>(c);
  if (st == JsonScanner::Step::ValueEnd) {
    cs_.json().after_value = true;
    cs_.json().value_end = c_.held.size();
    cs_.json().tail_fence = 0;
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
    const std::size_t lt = cs_.json().lt_index;
    std::string again = c_.held.substr(lt);
    again += static_cast<char>(c);
    const std::uint64_t lt_pos = cs_.json().lt_pos;
    const bool lt_line_ws = cs_.json().lt_line_ws;
    std::string tail = c_.held.substr(cs_.json().value_end, lt - cs_.json().value_end);
    complete_json(cs_.json().value_end, cs_.json().value_end, true);
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
    cs_.json().lt_index = c_.held.size();
    cs_.json().lt_pos = pos_;
    cs_.json().lt_line_ws = ctx.line_ws_only;
    c_.held += static_cast<char>(c);
    return;
  }
  if (cs_.json().tail_fence == 1) {
    if (c == static_cast<unsigned char>(c_.held[cs_.json().fence_line_begin])) {
      ++cs_.json().tail_run;
      c_.held += static_cast<char>(c);
      return;
    }
    if (cs_.json().tail_run < 3) return end_json_at_value(c, ctx);
    cs_.json().tail_fence = 2;  // a closing fence line (5.4): the rest of its line goes with it
  }
  if (cs_.json().tail_fence == 2) {
    c_.held += static_cast<char>(c);
    if (c == '\n') cs_.json().tail_fence = 3;
    return;
  }
  if (is_markup_space(c)) {
    c_.held += static_cast<char>(c);
    return;
  }
  if (cs_.json().tail_fence == 0 && (c == '`' || c == '~') && ctx.line_ws_only) {
    cs_.json().tail_fence = 1;
    cs_.json().tail_run = 1;
    cs_.json().fence_line_begin = c_.held.size();
    c_.held += static_cast<char>(c);
    return;
  }
  if (cs_.json().tail_fence == 0 && (c == ',' || c == '{' || c == '[')) {
    // 5.4: several values in a row, optionally separated by commas.
    const JsonScanner::Step st = json_.step(c);
    c_.held += static_cast<char>(c);
    if (st == JsonScanner::Step::ValueStart) {
      cs_.json().after_value = false;
      cs_.json().json_line_ws = false;
    }
    return;
  }
  end_json_at_value(c, ctx);
}

// Something else follows a complete value: the directive counts, and what follows is ordinary text (5.4).
void Parser::Impl::end_json_at_value(unsigned char c, const Ctx& ctx) {
  std::string tail = c_.held.substr(cs_.json().value_end);
  complete_json(cs_.json().value_end, cs_.json().value_end, true);
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
  std::string_view text =
      std::string_view(c_.held).substr(cs_.body().body_begin, json_end - cs_.body().body_begin);
  std::vector<LenientResult> values = parse_lenient_sequence(text);
  const TagName* t = cs_.tag().tag >= 0 ? &names_.tags[static_cast<std::size_t>(cs_.tag().tag)] : nullptr;
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
    results.push_back(std::move(validate_construct(body)));
  }
  reset_construct();
  opener_.reset();
  close_.reset();
  code_.restore(code);
  code_.mark_line_content();
  for (Validated& v : results) directive(spelling, {}, v, begin, begin + span_end, clean, false, ending);
}

void Parser::Impl::json_drop_byte(unsigned char c) {
  if (close_.step(c, 0)) complete_oversized(pos_ + 1);
}

// A JSON or markup body past its limit (5.5): listed invalid with nothing parsed, its bytes removed.
void Parser::Impl::complete_oversized(std::uint64_t end) {
  Validated v;
  if (cs_.tag().tag < 0) {
    Body none;
    none.kind = Body::Kind::JsonError;
    v = std::move(validate_construct(none));  // MCP: {server, tool, arguments: {}}
  }
  v.valid = false;
  const TagName* t = cs_.tag().tag >= 0 ? &names_.tags[static_cast<std::size_t>(cs_.tag().tag)] : nullptr;
  const std::uint64_t begin = c_.begin, clean = c_.clean_offset;
  const auto code = c_.code_at_begin;
  reset_construct();
  close_.reset();
  code_.restore(code);
  code_.mark_line_content();
  directive(t != nullptr ? t->spelling : -1, {}, v, begin, end, clean, false, Ending::TooLong);
}

}  // namespace sigil::parse
