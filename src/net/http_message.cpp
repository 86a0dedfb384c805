#include "sigil/net/http_message.h"

namespace sigil::net {

namespace {
bool equal_ascii_nocase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] + 32) : b[i];
    if (x != y) return false;
  }
  return true;
}
}  // namespace

const std::string* find_header(const Headers& headers, std::string_view name) noexcept {
  for (const Header& header : headers) {
    if (equal_ascii_nocase(header.name, name)) return &header.value;
  }
  return nullptr;
}

}  // namespace sigil::net
