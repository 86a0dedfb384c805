#include "name_table.h"

#include <algorithm>
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
  if (fold_case)
    for (unsigned char c = 'A'; c <= 'Z'; ++c) symbol_[c] = symbol_[c - 'A' + 'a'];
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
}

int NameTable::walk_all(std::string_view s) const {
  int node = kRoot;
  for (char ch : s) node = walk(node, static_cast<unsigned char>(ch));
  return node;
}

int NameTable::find(std::string_view name) const { return value(walk_all(name)); }

bool NameTable::has_prefix(std::string_view prefix) const { return walk_all(prefix) != kDead; }

}  // namespace sigil::parse
