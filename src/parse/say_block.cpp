// Say blocks (spec section 6): in say mode the text between `<say>` and `</say>` is what people see.
#include "parser_impl.h"

namespace sigil::parse {

namespace {

class NullSink final : public TextSink {
 public:
  void clean_text(std::string_view) override {}
};

}  // namespace

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
  directive(say_spelling_, "say", v, say_begin_, end, say_clean_offset_, true);
}

}  // namespace sigil::parse
