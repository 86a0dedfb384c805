#include "name_table.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace sigil::parse {

namespace {
constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:";
}  // namespace

NameTable::NameTable(bool fold_case) {
  static_assert(kAlphabet.size() == kSymbols);
  symbol_.fill(-1);
  for (std::size_t i = 0; i < kAlphabet.size(); ++i)
    symbol_[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  if (fold_case) {
    for (unsigned char c = 'A'; c <= 'Z'; ++c) symbol_[c] = symbol_[c - 'A' + 'a'];
    fold_bits_ = 0x2020202020202020ull;
  }
  Node root;
  root.next.fill(static_cast<std::int16_t>(kDead));
  nodes_.push_back(root);
}

void NameTable::add(std::string_view name, int value) {
  int node = kRoot;
  for (char ch : name) {
    const int sym = symbol_[static_cast<unsigned char>(ch)];
    if (sym < 0)
      throw std::invalid_argument("name byte outside a-z 0-9 _ - . : in \"" + std::string(name) + "\"");
    auto& slot = nodes_[static_cast<std::size_t>(node)].next[static_cast<std::size_t>(sym)];
    if (slot == kDead) {
      if (nodes_.size() >= 32767) throw std::length_error("too many names");
      Node fresh;
      fresh.next.fill(static_cast<std::int16_t>(kDead));
      nodes_.push_back(fresh);
      // `slot` may dangle after push_back: index again.
      nodes_[static_cast<std::size_t>(node)].next[static_cast<std::size_t>(sym)] =
          static_cast<std::int16_t>(nodes_.size() - 1);
    }
    node = nodes_[static_cast<std::size_t>(node)].next[static_cast<std::size_t>(sym)];
  }
  // The first registration of a name wins, as with a sorted table's first entry.
  if (nodes_[static_cast<std::size_t>(node)].value < 0) nodes_[static_cast<std::size_t>(node)].value = value;
  longest_ = std::max(longest_, name.size());
  added_.emplace_back(name, value);
  slots_.clear();  // stale until build()
}

// A multiplier per bit width that sends every key to its own slot, tried from a fixed sequence (so the table
// is the same on every run); the first that works is kept. Keys no multiplier separates (two sums equal) are
// left to the trie: the table stays empty and match_whole() walks it.
void NameTable::build() {
  slots_.clear();
  std::vector<std::pair<Key, int>> keys;
  for (const auto& [name, value] : added_) {
    if (name.empty()) return;                  // an empty name (the root's value): the trie alone
    if (name.size() >= kWholeBytes) continue;  // never looked up whole
    std::array<unsigned char, 16> bytes{};
    std::memcpy(bytes.data(), name.data(), name.size());
    std::uint64_t w0, w1;
    std::memcpy(&w0, bytes.data(), 8);
    std::memcpy(&w1, bytes.data() + 8, 8);
    const Key k = fold(w0, w1, name.size());
    bool known = false;  // the first registration of a name wins, as in the trie
    for (const auto& kv : keys) known = known || kv.first == k;
    if (!known) keys.emplace_back(k, find(name));
  }
  if constexpr (std::endian::native != std::endian::little) return;
  if (keys.empty()) return;
  unsigned bits = 1;
  while ((std::size_t{1} << bits) < 2 * keys.size()) ++bits;
  std::uint64_t state = 0x5157A7E5EEDull;
  for (; bits <= 16; ++bits) {
    shift_ = 64 - bits;
    std::vector<Slot> table(std::size_t{1} << bits);
    for (int attempt = 0; attempt < 512; ++attempt) {
      state += 0x9E3779B97F4A7C15ull;  // splitmix64
      std::uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      seed_ = (z ^ (z >> 31)) | 1;
      std::fill(table.begin(), table.end(), Slot{});
      bool perfect = true;
      for (const auto& [k, value] : keys) {
        Slot& slot = table[slot_of(k)];
        if (slot.key != Key{0, 0}) {
          perfect = false;
          break;
        }
        slot = Slot{k, value};
      }
      if (perfect) {
        slots_ = std::move(table);
        return;
      }
    }
  }
}

int NameTable::walk_all(std::string_view s) const {
  int node = kRoot;
  for (char ch : s) node = walk(node, static_cast<unsigned char>(ch));
  return node;
}

int NameTable::find(std::string_view name) const { return value(walk_all(name)); }

bool NameTable::has_prefix(std::string_view prefix) const { return walk_all(prefix) != kDead; }

}  // namespace sigil::parse
