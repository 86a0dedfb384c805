// The code tracker's state after each byte of a document stepped one byte at a time: what every bulk path
// (feed() with masks or without, the walk along the mask words) must reach, for the tracker's tests.
#pragma once

#include <string_view>
#include <vector>

#include "sigil/text/code_tracker.h"

namespace sigil::test {

inline std::vector<text::CodeTracker::State> stepped_states(std::string_view doc) {
  std::vector<text::CodeTracker::State> states;
  text::CodeTracker t;
  for (char c : doc) {
    t.step(static_cast<unsigned char>(c));
    states.push_back(t.snapshot());
  }
  return states;
}

}  // namespace sigil::test
