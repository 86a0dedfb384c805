// The end of the reply (spec 11.6): every pending construct is settled by how the reply ended, then the
// clean-text stages finish and silence or fallback is decided.
#include "parser_impl.h"

namespace sigil::parse {

void Parser::Impl::finish_text() {
  if (text_finished_) return;
  text_finished_ = true;
  if (!opt_.say_mode) {
    main_tidy_.finish();
    main_judge_.finish();
    stats_.direct_text_runs = main_tidy_.direct_runs();
    stats_.shared_code_bytes = main_judge_.shared_code_bytes();
    stats_.told_dead_bytes = main_judge_.told_dead_bytes();
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
        const bool partial_close = cs_.json().lt_pending && close_.in_progress();
        if (!partial_close && has_non_ws(std::string_view(c_.held).substr(cs_.body().body_begin)) &&
            c_.kind != Kind::JsonFenceLine && c_.kind != Kind::JsonAfterFence) {
          if (cut) {
            complete_text_body(c_.held.size(), c_.held.size(), Ending::CutOff);
          } else {
            release_all();
          }
          return;
        }
        Validated& v = validate_construct(Body{});
        const TagName* t =
            cs_.tag().tag >= 0 ? &names_.tags[static_cast<std::size_t>(cs_.tag().tag)] : nullptr;
        const std::uint64_t begin = c_.begin, clean = c_.clean_offset, end = c_.begin + c_.held.size();
        const auto code = c_.code_at_begin;
        reset_construct();
        code_.restore(code);
        code_.mark_line_content();
        directive(t != nullptr ? t->spelling : -1, {}, v, begin, end, clean, false,
                  cut ? Ending::CutOff : Ending::Complete);
        return;
      }
      case Kind::JsonBody: {
        // The close tag never came: the body is what was read, repaired (stop) or refused (length).
        const std::size_t end = cs_.json().after_value ? cs_.json().value_end : c_.held.size();
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
      case Kind::HiddenWait:
        release_hidden_wait();
        continue;  // the replay may have left something pending
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

}  // namespace sigil::parse
