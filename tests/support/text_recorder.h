// A clean-text sink for the parse stages' tests: keeps every byte it is given and counts the calls, and fails
// the test on an empty call (the stages never pass nothing on).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/tidier.h"

namespace sigil::test {

class TextRecorder final : public parse::TextSink {
 public:
  void clean_text(std::string_view bytes) override {
    EXPECT_FALSE(bytes.empty());
    text.append(bytes);
    ++calls;
  }
  std::string text;
  std::size_t calls = 0;
};

// Every call as it came, for tests that compare how two paths split the text too.
class CallRecorder final : public parse::TextSink {
 public:
  void clean_text(std::string_view bytes) override { calls.emplace_back(bytes); }
  std::vector<std::string> calls;
};

}  // namespace sigil::test
