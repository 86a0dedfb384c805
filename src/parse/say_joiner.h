// Say mode's joiner of say blocks (private to parse/).
#pragma once

#include <string>
#include <string_view>

#include "sigil/parse/tidier.h"

namespace sigil::parse {

// Say mode: keeps the current block's tidied text for its directive, and joins blocks with a blank line
// on their way to the say stream's sentinel judge (cli-parse: blocks joined by "\n\n").
class SayJoiner final : public TextSink {
 public:
  explicit SayJoiner(TextSink& out) : out_(out) {}
  void begin_block() {
    block_.clear();
    started_ = false;
  }
  void clean_text(std::string_view s) override {
    if (s.empty()) return;
    if (!started_) {
      if (any_) out_.clean_text("\n\n");
      started_ = any_ = true;
    }
    block_.append(s);
    out_.clean_text(s);
  }
  const std::string& block_text() const { return block_; }

 private:
  TextSink& out_;
  std::string block_;
  bool started_ = false;
  bool any_ = false;
};

}  // namespace sigil::parse
