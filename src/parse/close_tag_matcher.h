// Matches one known close tag, `</NAME WS? >` (ASCII case-insensitive), byte by byte.
//
// Bodies use it for their own close tag, which ends them wherever it stands (except inside a JSON string
// opened on the same line, which the caller handles by not feeding it). Promise: O(1) per byte, no
// allocation; a `<` always restarts a match, so no occurrence is missed.
#pragma once

#include <cstddef>
#include <string_view>

#include "sigil/text/ascii.h"

namespace sigil::parse {

class CloseTagMatcher {
 public:
  // Matches `lower_name`, whose bytes are not copied: they must stay as they are while the matcher is used
  // (the pending construct's own name, set when its body begins; a copy cost each body about 30
  // instructions).
  void set_name(std::string_view lower_name) {
    name_ = lower_name;
    reset();
  }
  void reset() { matched_ = 0, phase_ = Phase::Idle; }

  // Feeds one byte; true when it was the `>` of the close tag. `position` is the byte's offset (any
  // coordinate system the caller likes); begin() then gives the offset of the tag's `<`.
  bool step(unsigned char c, std::size_t position) {
    switch (phase_) {
      case Phase::Idle:
        break;
      case Phase::Lt:
        if (c == '/') {
          phase_ = Phase::Name;
          return false;
        }
        break;
      case Phase::Name:
        if (matched_ < name_.size() && text::ascii::lower(static_cast<char>(c)) == name_[matched_]) {
          ++matched_;
          return false;
        }
        if (matched_ == name_.size()) {
          if (text::ascii::is_markup_space(static_cast<char>(c))) {
            phase_ = Phase::Ws;
            return false;
          }
          if (c == '>') {
            reset();
            return true;
          }
        }
        break;
      case Phase::Ws:
        if (text::ascii::is_markup_space(static_cast<char>(c))) return false;
        if (c == '>') {
          reset();
          return true;
        }
        break;
    }
    reset();
    if (c == '<') {
      phase_ = Phase::Lt;
      begin_ = position;
    }
    return false;
  }

  bool in_progress() const { return phase_ != Phase::Idle; }
  std::size_t begin() const { return begin_; }

 private:
  enum class Phase : unsigned char { Idle, Lt, Name, Ws };

  std::string_view name_;
  std::size_t matched_ = 0;
  std::size_t begin_ = 0;
  Phase phase_ = Phase::Idle;
};

}  // namespace sigil::parse
