// The replies every channel renderer's NUL test reads: CommonMark shows a NUL as U+FFFD (2.3), once, in text,
// in emphasis, in code spans and in fenced and indented code blocks, so no NUL byte reaches a chat. One list
// for every renderer; each test says what its renderer makes of it.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <string>

namespace sigil::channels::testing {

using NulRenders = std::array<std::string, 4>;

inline NulRenders nul_replies() {
  using namespace std::string_literals;
  return {"a\0b *c\0*"s, "a `x\0y` b"s, "```\nc\0d\0\0\n```"s, "    \0e\n"s};
}

// EXPECT_EQ(render(nul_replies()[i]), want[i]) for each reply, the reply named when it fails.
template <class Render>
void expect_nul_renders(const Render& render, const NulRenders& want) {
  const NulRenders replies = nul_replies();
  for (std::size_t i = 0; i < replies.size(); ++i)
    EXPECT_EQ(render(replies[i]), want[i]) << "for the input " << ::testing::PrintToString(replies[i]);
}

}  // namespace sigil::channels::testing
