// A sorted table of names with exact and prefix lookup, for recognising markup names byte by byte.
//
// Promise: lookups are O(log n) and allocate nothing. Names are compared as bytes; callers fold case first
// where the grammar says names match case-insensitively.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sigil::parse {

class NameTable {
 public:
  void add(std::string name, int value);
  // Sorts the table; call once after the last add.
  void build();

  // The value of `name`, or -1.
  int find(std::string_view name) const;
  // True when some name starts with `prefix` (the empty prefix included).
  bool has_prefix(std::string_view prefix) const;
  std::size_t longest() const { return longest_; }

 private:
  std::vector<std::pair<std::string, int>> entries_;
  std::size_t longest_ = 0;
};

// ASCII lower case of one byte; other bytes unchanged.
inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
inline char ascii_upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
std::string ascii_lower(std::string_view s);

}  // namespace sigil::parse
