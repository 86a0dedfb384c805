#include "name_table.h"

#include <algorithm>

namespace sigil::parse {

void NameTable::add(std::string name, int value) {
  longest_ = std::max(longest_, name.size());
  entries_.emplace_back(std::move(name), value);
}

void NameTable::build() {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

int NameTable::find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const auto& e, std::string_view n) { return std::string_view(e.first) < n; });
  return (it != entries_.end() && it->first == name) ? it->second : -1;
}

bool NameTable::has_prefix(std::string_view prefix) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), prefix,
                             [](const auto& e, std::string_view n) { return std::string_view(e.first) < n; });
  return it != entries_.end() && std::string_view(it->first).substr(0, prefix.size()) == prefix;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

}  // namespace sigil::parse
