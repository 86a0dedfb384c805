#include "sigil/net/ip_address.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <vector>

namespace sigil::net {

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
  // inet_pton wants a NUL-terminated string; anything longer than an IPv6 literal is not one.
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char buffer[INET6_ADDRSTRLEN] = {};
  std::memcpy(buffer, text.data(), text.size());
  IpAddress out;
  if (text.find(':') == std::string_view::npos) {
    if (::inet_pton(AF_INET, buffer, out.bytes.data()) != 1) return std::nullopt;
    out.v4 = true;
    return out;
  }
  if (::inet_pton(AF_INET6, buffer, out.bytes.data()) != 1) return std::nullopt;
  out.v4 = false;
  return out;
}

IpAddress IpAddress::from_v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress out;
  out.bytes[0] = a;
  out.bytes[1] = b;
  out.bytes[2] = c;
  out.bytes[3] = d;
  return out;
}

std::string IpAddress::to_string() const {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(v4 ? AF_INET : AF_INET6, bytes.data(), buffer, sizeof buffer) == nullptr) return "?";
  return buffer;
}

std::optional<IpAddress> IpAddress::embedded_v4() const {
  if (v4) return std::nullopt;
  const auto zero = [this](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (bytes[i] != 0) return false;
    return true;
  };
  const auto v4_at = [this](std::size_t at) {
    return from_v4(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  };
  // ::ffff:a.b.c.d (IPv4-mapped): what a dual-stack socket turns an IPv4 peer into.
  if (zero(0, 10) && bytes[10] == 0xff && bytes[11] == 0xff) return v4_at(12);
  // ::a.b.c.d (IPv4-compatible, deprecated), but not :: and ::1, which are IPv6's own.
  if (zero(0, 12) && !(zero(12, 15) && bytes[15] <= 1)) return v4_at(12);
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix): a NAT64 gateway connects to the IPv4 inside.
  if (bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xff && bytes[3] == 0x9b && zero(4, 12))
    return v4_at(12);
  // 2002:aabb:ccdd::/48 (6to4): the relay delivers to a.b.c.d.
  if (bytes[0] == 0x20 && bytes[1] == 0x02) return v4_at(2);
  return std::nullopt;
}

std::optional<IpRange> IpRange::parse(std::string_view text) {
  const auto slash = text.find('/');
  auto address = IpAddress::parse(text.substr(0, slash));
  if (!address) return std::nullopt;
  const int bits = address->v4 ? 32 : 128;
  int prefix = bits;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || prefix < 0 ||
        prefix > bits)
      return std::nullopt;
  }
  return IpRange{*address, prefix};
}

bool IpRange::contains(const IpAddress& address) const noexcept {
  if (address.v4 != base.v4) return false;
  int left = prefix;
  for (std::size_t i = 0; left > 0; ++i, left -= 8) {
    const int take = left >= 8 ? 8 : left;
    const auto mask = static_cast<std::uint8_t>(0xff << (8 - take));
    if ((address.bytes[i] & mask) != (base.bytes[i] & mask)) return false;
  }
  return true;
}

namespace {

struct SpecialRange {
  const char* range;
  const char* why;
};

// IANA's special-purpose registries (RFC 6890 and updates) plus multicast and the reserved block: none of
// them is a public web server. Order matters only for the reason shown.
constexpr SpecialRange kV4[] = {
    {"0.0.0.0/8", "unspecified (\"this network\", 0.0.0.0/8)"},
    {"10.0.0.0/8", "private (10.0.0.0/8)"},
    {"100.64.0.0/10", "shared address space (100.64.0.0/10, carrier-grade NAT)"},
    {"127.0.0.0/8", "loopback (127.0.0.0/8)"},
    {"169.254.0.0/16", "link-local (169.254.0.0/16; cloud metadata lives at 169.254.169.254)"},
    {"172.16.0.0/12", "private (172.16.0.0/12)"},
    {"192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)"},
    {"192.0.2.0/24", "documentation (192.0.2.0/24)"},
    {"192.88.99.0/24", "6to4 relay anycast (192.88.99.0/24)"},
    {"192.168.0.0/16", "private (192.168.0.0/16)"},
    {"198.18.0.0/15", "benchmarking (198.18.0.0/15)"},
    {"198.51.100.0/24", "documentation (198.51.100.0/24)"},
    {"203.0.113.0/24", "documentation (203.0.113.0/24)"},
    {"224.0.0.0/4", "multicast (224.0.0.0/4)"},
    {"240.0.0.0/4", "reserved (240.0.0.0/4, broadcast included)"},
};

constexpr SpecialRange kV6[] = {
    {"::/128", "unspecified (::)"},
    {"::1/128", "loopback (::1)"},
    {"100::/64", "discard-only (100::/64)"},
    {"2001::/23", "IETF protocol assignments (2001::/23, Teredo included)"},
    {"2001:db8::/32", "documentation (2001:db8::/32)"},
    {"fc00::/7", "unique local, private (fc00::/7)"},
    {"fe80::/10", "link-local (fe80::/10)"},
    {"fec0::/10", "site-local (fec0::/10)"},
    {"ff00::/8", "multicast (ff00::/8)"},
};

const std::vector<std::pair<IpRange, const char*>>& table(bool v4) {
  static const auto build = [](const auto& rows) {
    std::vector<std::pair<IpRange, const char*>> out;
    for (const SpecialRange& row : rows) out.emplace_back(*IpRange::parse(row.range), row.why);
    return out;
  };
  static const std::vector<std::pair<IpRange, const char*>> v4_table = build(kV4);
  static const std::vector<std::pair<IpRange, const char*>> v6_table = build(kV6);
  return v4 ? v4_table : v6_table;
}

}  // namespace

std::optional<std::string> special_purpose(const IpAddress& address) {
  for (const auto& [range, why] : table(address.v4)) {
    if (range.contains(address)) return std::string(why);
  }
  if (auto inner = address.embedded_v4()) {
    if (auto why = special_purpose(*inner)) return *why + " inside the IPv6 address " + address.to_string();
  }
  return std::nullopt;
}

}  // namespace sigil::net
