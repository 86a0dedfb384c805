// What a completed construct becomes: a directive event (policy, limits, interruption: 12.2, 12.5, 12.6), a
// diagnostic, or silence (section 7).
#include "parser_impl.h"

namespace sigil::parse {

// ---------------------------------------------------------------------------------------------------------
// Results

void Parser::Impl::diag(std::string_view code, std::uint64_t offset, std::string_view message) {
  ++stats_.diagnostics;
  // The same diagnostic often comes again (`abandoned` for each released opener): a compare of a few bytes
  // costs less than an assignment. (The sink gets diag_ as const, so it holds what was last assigned.)
  if (std::string_view(diag_.code) != code) diag_.code.assign(code);
  diag_.offset = offset;
  if (std::string_view(diag_.message) != message) diag_.message.assign(message);
  diag_code_literal_ = nullptr;
  diag_message_literal_ = nullptr;
  sink_.on_diagnostic(diag_);
}

void Parser::Impl::diag_literal(std::string_view code, std::uint64_t offset, std::string_view message) {
  ++stats_.diagnostics;
  if (code.data() != diag_code_literal_) {
    diag_.code.assign(code);
    diag_code_literal_ = code.data();
  }
  diag_.offset = offset;
  if (message.data() != diag_message_literal_) {
    diag_.message.assign(message);
    diag_message_literal_ = message.data();
  }
  sink_.on_diagnostic(diag_);
}

void Parser::Impl::directive(int spelling, std::string_view action, Validated& v, std::uint64_t begin,
                             std::uint64_t end, std::uint64_t clean_offset, bool is_say, Ending ending) {
  none_close_name_.clear();
  // One event object for all directives: assigning into it (and swapping with `v`) keeps the storage of the
  // strings and the argument object, so the steady state allocates nothing here. Deferred arguments stay
  // deferred: views into `v` (alive until this returns), built only if a reader asks (events.h).
  DirectiveEvent& e = event_;
  const SpellingInfo* info = spelling_info(spelling);
  if (info != nullptr) {
    // Often the last directive's action again: then e.action already holds it (no compare of the bytes).
    if (info != event_action_of_) {
      e.action.assign(info->action);
      event_action_of_ = info;
    }
  } else {
    e.action.assign(action.empty() ? std::string_view("mcp") : action);
    event_action_of_ = nullptr;
  }
  if (v.args_deferred) {
    e.defer_string_args(
        std::span<const StringArg>(deferred_args_.data(), v.string_args(deferred_args_.span())));
  } else {
    e.swap_args(v.args);
  }
  e.valid = v.valid;
  if (!e.error.empty() || !v.error.empty()) e.error.swap(v.error);  // most directives have neither
  e.span_begin = input_offset(begin);
  e.span_end = input_offset(end);
  e.clean_offset = clean_offset;
  e.spelling = spelling;
  for (const Note& note : v.notes) diag(note.code, e.span_begin, note.message);
  if (!e.valid) diag("invalid-directive", e.span_begin, e.error);
  const bool interrupting = info != nullptr && info->interrupts;
  const bool denied = spelling >= 0 ? (static_cast<std::size_t>(spelling) < denied_.size() &&
                                       denied_[static_cast<std::size_t>(spelling)])
                                    : deny_mcp_;
  if (ending == Ending::Complete && !denied && !interrupted_ &&
      (is_say || counted_directives_ < opt_.max_directives)) {
    counted_directives_ += is_say ? 0 : 1;  // the common directive: nothing refuses it
  } else {
    refuse_directive(is_say, ending, interrupting, denied);
  }
  e.interrupts = e.valid && interrupting;
  if (e.valid && !is_say) any_valid_directive_ = true;
  ++stats_.directives;
  sink_.on_directive(e);
  if (!is_say) {
    if (!(e.valid && info != nullptr && info->inline_result && opt_.inline_resolver) || !inline_result(e))
      gap(GapKind::Directive);
  }
  if (e.interrupts && !interrupted_) start_interrupt(end);
}

// 10.2: the result of an inline-result directive takes its place (its surroundings stay); false when there
// is none to show. Out of line: directive() builds no std::optional<std::string> for the common directive.
bool Parser::Impl::inline_result(const DirectiveEvent& e) {
  const std::optional<std::string> text = opt_.inline_resolver(e);
  if (!text || text->empty()) return false;
  emit_text(*text);
  return true;
}

// What refuses a directive that is not the common case (directive()), in the order the refusals are
// reported. A refusal is why the directive will not run, so its reason replaces a validation error; the
// first refusal is the one reported in `error`, every one gets a diagnostic.
void Parser::Impl::refuse_directive(bool is_say, Ending ending, bool interrupting, bool denied) {
  DirectiveEvent& e = event_;
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

}  // namespace sigil::parse
