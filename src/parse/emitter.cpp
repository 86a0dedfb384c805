#include "emitter.h"

#include <utility>

namespace sigil::parse {
namespace {

// Where an incomplete UTF-8 sequence at the end of `s` begins (s.size() when there is none).
std::size_t complete_prefix(std::string_view s) noexcept {
  const std::size_t n = s.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<unsigned char>(s[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: keep looking for its lead
    const std::size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

}  // namespace

void Emitter::send_joined(std::string_view s) {
  std::string joined;
  if (!pending_.empty()) {
    pending_.append(s);
    joined = std::move(pending_);
    pending_.clear();
    s = joined;
  }
  const std::size_t cut = complete_prefix(s);
  if (cut < s.size()) pending_.assign(s.substr(cut));
  if (cut > 0) sink_.on_text(s.substr(0, cut), hidden_);
}

}  // namespace sigil::parse
