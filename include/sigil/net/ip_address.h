// IP addresses as values, and the address ranges a request from the gateway must never reach on a model's
// say-so (the SSRF guard, ssrf_guard.h; spec 15).
//
// Promises:
// - IpAddress::parse accepts exactly the literal forms inet_pton accepts (dotted-quad IPv4, RFC 4291 IPv6
//   without brackets or zone); anything else is nullopt, never a guess ("127.1", "0x7f.0.0.1" and
//   "017.0.0.1" are not addresses here, so a host written that way goes to the resolver as a name).
// - special_purpose() looks through every IPv6 form that carries an IPv4 address (IPv4-mapped
//   ::ffff:0:0/96, IPv4-compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) and judges the IPv4 inside,
//   so ::ffff:127.0.0.1 is loopback like 127.0.0.1.
// - Plain values, no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sigil::net {

struct IpAddress {
  bool v4 = true;
  // IPv4: the first 4 bytes; IPv6: all 16. Network byte order.
  std::array<std::uint8_t, 16> bytes{};

  static std::optional<IpAddress> parse(std::string_view text);
  static IpAddress from_v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d);
  std::size_t size() const noexcept { return v4 ? 4 : 16; }
  // "127.0.0.1", "::1", "::ffff:127.0.0.1" (inet_ntop's spelling).
  std::string to_string() const;
  // The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or nullopt.
  std::optional<IpAddress> embedded_v4() const;

  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// An address range: "10.0.0.0/8", "fc00::/7", or one address ("127.0.0.1" is 127.0.0.1/32).
struct IpRange {
  IpAddress base;
  int prefix = 32;

  // nullopt when `text` is neither an address nor address/prefix with a prefix that fits the family.
  static std::optional<IpRange> parse(std::string_view text);
  // False for an address of the other family (an IPv4 range never holds an IPv6 address).
  bool contains(const IpAddress& address) const noexcept;
};

// Why the gateway must not connect to `address` on a model's request, e.g. "loopback (127.0.0.0/8)" or
// "link-local (169.254.0.0/16; cloud metadata lives at 169.254.169.254)"; nullopt for a public address.
std::optional<std::string> special_purpose(const IpAddress& address);

}  // namespace sigil::net
