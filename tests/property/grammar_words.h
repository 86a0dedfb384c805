// What the reply generator's parts share (grammar_gen.cpp, marked_reply.cpp): the hidden-region names and
// the bytes prose may hold without being read as markup.
#pragma once

#include <string>
#include <vector>

namespace sigil::testing::gen {

inline const std::vector<std::string> kHidden = {"think",   "thinking", "reasoning",
                                                 "thought", "THINK",    "Thinking"};

inline bool safe_prose_byte(unsigned char c) {
  return c != '<' && c != '>' && c != '[' && c != ']' && c != '`' && c != '~' && c != '&' && c != '\\';
}

}  // namespace sigil::testing::gen
