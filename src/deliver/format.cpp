#include "sigil/deliver/format.h"

#include <array>
#include <cstdio>

namespace sigil::deliver {

std::string human_size(std::uint64_t bytes) {
  char buf[32];
  if (bytes < 1000) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    return buf;
  }
  static constexpr std::array<const char*, 4> kUnits{"KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes) / 1000.0;
  std::size_t u = 0;
  while (v >= 999.95 && u + 1 < kUnits.size()) {
    v /= 1000.0;
    ++u;
  }
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
}

std::string human_duration(std::uint64_t ms) {
  const std::uint64_t s = (ms + 500) / 1000;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(s / 60),
                static_cast<unsigned long long>(s % 60));
  return buf;
}

}  // namespace sigil::deliver
