// A table of names with exact lookup and byte-by-byte prefix matching, for recognising markup names.
//
// Names are stored in a trie whose nodes are dense rows over the bytes names may use, so a matcher follows
// one name byte with one table load (no string comparisons) and knows at once when no name can follow.
// Promise: walk() and value() are O(1) and allocate nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::parse {

class NameTable {
 public:
  static constexpr int kDead = -1;
  static constexpr int kRoot = 0;

  // `fold_case`: ASCII upper- and lower-case letters are the same byte for names and lookups.
  explicit NameTable(bool fold_case = true);
  void add(std::string_view name, int value);
  // Kept for symmetry with earlier users; the trie is always ready.
  void build() {}

  // The node reached from `node` by `byte`, or kDead.
  int walk(int node, unsigned char byte) const {
    if (node < 0) return kDead;
    const int sym = symbol_[byte];
    return sym < 0 ? kDead : nodes_[static_cast<std::size_t>(node)].next[static_cast<std::size_t>(sym)];
  }
  // The value of the name ending at `node`, or -1.
  int value(int node) const { return value_of(node); }

  // Reads the name bytes at the front of s (those a name may use) and returns how many there are; *found is
  // the value of the name they spell, or -1. One table load per byte, as walk().
  std::size_t match(std::string_view s, int* found) const {
    int node = kRoot;
    std::size_t i = 0;
    for (; i < s.size(); ++i) {
      const int sym = symbol_[static_cast<unsigned char>(s[i])];
      if (sym < 0) break;
      if (node >= 0) node = nodes_[static_cast<std::size_t>(node)].next[static_cast<std::size_t>(sym)];
    }
    *found = value_of(node);
    return i;
  }
  // Whether b may stand in a name.
  bool is_name_byte(unsigned char b) const { return symbol_[b] >= 0; }

  // Whole-name helpers (O(length)).
  int find(std::string_view name) const;
  bool has_prefix(std::string_view prefix) const;
  std::size_t longest() const { return longest_; }

 private:
  static constexpr std::size_t kSymbols = 66;  // a-z A-Z 0-9 _ - . :
  struct Node {
    std::array<std::int16_t, kSymbols> next;
    int value = -1;
  };
  int walk_all(std::string_view s) const;
  int value_of(int node) const { return node < 0 ? -1 : nodes_[static_cast<std::size_t>(node)].value; }

  std::array<std::int8_t, 256> symbol_{};
  std::vector<Node> nodes_;
  std::size_t longest_ = 0;
};

}  // namespace sigil::parse
