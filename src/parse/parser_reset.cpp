// Parser::reset(): the next reply on the same parser, without building a new one. Every member of the
// recognizer's state is set back to what the constructor gives it (parser_impl.h lists them in this
// order); what depends only on the grammar and the options (the name index, denied spellings, the say tag's
// name, the stage-1 kernel, the kept tag prefix: TagPrefix) stays. tests/parse/parser_reset_test.cpp holds a
// reused parser to a new one's events on every conformance vector, after finished and after abandoned
// replies.
#include "parser_impl.h"

namespace sigil::parse {

void Parser::Impl::reset() {
  stats_ = ParserStats{};

  utf8_.reset();
  code_.reset();
  pre_step_ = {};
  window_ = {};

  visible_.reset();
  hidden_out_.reset();
  main_judge_.reset();
  main_tidy_.reset();
  say_.reset();
  if (opt_.say_mode) say_.emplace(hidden_out_, visible_, opt_.whitespace_limit);
  block_tidy_.reset();

  pos_ = 0;
  mode_ = Mode::Text;
  line_ws_only_ = true;
  only_removed_ = true;
  window_open_ = false;
  interrupted_ = false;
  chain_open_ = false;
  silent_by_tag_ = false;
  silence_reported_ = false;
  text_finished_ = false;
  finished_ = false;
  counted_directives_ = 0;
  any_valid_directive_ = false;
  any_say_block_ = false;

  opener_.reset();
  opener_bytes_.clear();
  opener_clean_offset_ = 0;
  opener_code_ = {};
  opener_line_start_ = false;
  trigger_code_ = {};
  trigger_line_start_ = false;

  tag_.start();
  close_.reset();
  json_.reset();
  // scratch_, event_ and diag_ keep their storage: each is overwritten before it is read (diag_'s literal
  // pointers stay with it: they say what it holds).

  reset_construct();  // and held_lag_

  hidden_scan_.reset();
  hidden_begin_ = 0;

  none_close_name_.clear();
  interrupt_text_noted_ = false;
  interrupt_pos_ = 0;
  utf8_noted_ = 0;

  in_say_block_ = false;
  say_spelling_ = -1;
  say_begin_ = 0;
  say_clean_offset_ = 0;

  if (opt_.think_open) {  // as the constructor starts such a reply
    mode_ = Mode::Hidden;
    hidden_begin_ = 0;
  }
}

}  // namespace sigil::parse
