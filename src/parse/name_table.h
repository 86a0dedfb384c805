// A table of names with exact lookup and byte-by-byte prefix matching, for recognising markup names.
//
// Names are stored in a trie whose nodes are dense rows over the bytes names may use, so a matcher follows
// one name byte with one table load (no string comparisons) and knows at once when no name can follow: the
// byte-at-a-time path, for a name that may straddle a chunk boundary. A name whose bytes are all at hand is
// looked up whole instead (match_whole): its bytes, folded and zero-padded to 16, are one key of a perfect
// hash over the registered names of up to 15 bytes, built once by build().
// Promise: walk() and value() are O(1) and allocate nothing; match_whole() gives match()'s answer.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "name_run.h"

namespace sigil::parse {

class NameTable {
 public:
  static constexpr int kDead = -1;
  static constexpr int kRoot = 0;

  // `fold_case`: ASCII upper- and lower-case letters are the same byte for names and lookups.
  explicit NameTable(bool fold_case = true);
  // The trie is ready at once; the whole-name table only after build() (match_whole() walks the trie until
  // then).
  void add(std::string_view name, int value);
  // Builds the whole-name table over the names added so far.
  void build();

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
  // The same answer as match(s, found), the name looked up whole: its end found by the byte class alone, then
  // one probe of the perfect hash and one compare of two words. Used when at least kWholeBytes + 1 bytes are
  // at hand (16 are loaded at once) and the name is shorter than kWholeBytes; anything else walks the trie.
  static constexpr std::size_t kWholeBytes = 16;
  // *whole (when given) says whether it was looked up whole.
  std::size_t match_whole(std::string_view s, int* found, bool* whole = nullptr) const {
    if constexpr (std::endian::native != std::endian::little) return match(s, found);
    if (s.size() <= kWholeBytes || slots_.empty()) return match(s, found);
    const unsigned char* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = name_run16(p);           // the class symbol_ gives a byte, 16 bytes at once
    if (n == kWholeBytes) return match(s, found);  // a longer name: no registered one is looked up whole
    std::uint64_t w0, w1;
    std::memcpy(&w0, p, 8);
    std::memcpy(&w1, p + 8, 8);
    const Key key = fold(w0, w1, n);
    const Slot& slot = slots_[slot_of(key)];
    *found = slot.key == key ? slot.value : -1;
    if (whole != nullptr) *whole = true;
    return n;
  }
  // Whether names are looked up whole (build() found a perfect hash for them).
  bool whole_ready() const { return !slots_.empty(); }

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

  // A name of n < 16 bytes as two little-endian words: the bytes past n zeroed, each name byte ORed with
  // 0x20 when case folds (on the name alphabet that maps A-Z to a-z, `_` to 0x7F and moves nothing else, so
  // two names share a key exactly when the trie folds them together). No name byte is zero: n is implied.
  using Key = std::pair<std::uint64_t, std::uint64_t>;
  Key fold(std::uint64_t w0, std::uint64_t w1, std::size_t n) const {
    const std::uint64_t m0 = n >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
    const std::uint64_t m1 = n <= 8 ? 0 : (std::uint64_t{1} << (8 * (n - 8))) - 1;
    return {(w0 | fold_bits_) & m0, (w1 | fold_bits_) & m1};
  }
  std::size_t slot_of(const Key& k) const {
    return static_cast<std::size_t>(((k.first + k.second * 0x9E3779B97F4A7C15ull) * seed_) >> shift_);
  }
  struct Slot {
    Key key{0, 0};  // {0, 0}: empty (no name is empty)
    int value = -1;
  };

  std::array<std::int8_t, 256> symbol_{};
  std::vector<Node> nodes_;
  std::size_t longest_ = 0;
  std::uint64_t fold_bits_ = 0;
  std::vector<std::pair<std::string, int>> added_;  // in order, for build()
  std::vector<Slot> slots_;                         // the perfect hash; empty until build()
  std::uint64_t seed_ = 1;
  unsigned shift_ = 63;
};

}  // namespace sigil::parse
