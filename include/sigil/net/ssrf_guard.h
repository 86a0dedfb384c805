// The SSRF guard (spec 15): decides whether the gateway may fetch a URL a model wrote, and pins the address
// it decided on, so the request connects to exactly that address.
//
// Promises:
// - check() accepts only http:// and https:// URLs. It resolves the host ONCE through the Resolver and
//   refuses the URL when ANY of its addresses is special-purpose (private, loopback, link-local with the
//   cloud metadata address, unspecified, multicast, documentation...; ip_address.h, IPv4 inside IPv6
//   included). A host written as an IP literal is judged as it is.
// - The answer names the one address to connect to (the first of the checked ones); HttpRequest's
//   connect_address carries it to the client, so a DNS answer that changes after the check (rebinding) is
//   never asked for, let alone used. Redirects are the caller's: each hop goes through check() again.
// - `allow_private` widens the guard for the operator's own services: an entry that is a host name lets
//   that name through whatever it resolves to; an entry that is an address or a CIDR range lets addresses
//   inside it through. Nothing else does: there is no switch that turns the guard off.
// - A refusal is one line that says why, e.g. `10.0.0.5 (the address of intranet.example) is private
//   (10.0.0.0/8)`; it never contains a request header.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/base/result.h"
#include "sigil/net/ip_address.h"
#include "sigil/net/resolver.h"
#include "sigil/net/url.h"

namespace sigil::net {

struct SsrfGuardOptions {
  // Host names (case-insensitive, exact) and addresses or CIDR ranges let through despite the guard.
  std::vector<std::string> allow_private;
  std::chrono::milliseconds resolve_timeout{5'000};
};

// A URL the guard accepted, and the address the request must connect to.
struct CheckedTarget {
  Url url;
  IpAddress address;
};

class SsrfGuard {
 public:
  // Throws std::invalid_argument for an allow_private entry that is neither a host name nor an address or
  // range (the configuration validates the same with allow_private_entry_error()).
  SsrfGuard(SsrfGuardOptions options, std::shared_ptr<Resolver> resolver);

  Result<CheckedTarget, std::string> check(std::string_view url) const;

 private:
  bool host_allowed(std::string_view host) const;
  bool address_allowed(const IpAddress& address) const;

  std::vector<std::string> allowed_hosts_;
  std::vector<IpRange> allowed_ranges_;
  std::chrono::milliseconds resolve_timeout_;
  std::shared_ptr<Resolver> resolver_;
};

// Why `entry` cannot be an allow_private entry (empty when it can): a host name, an IP address, or a range.
std::string allow_private_entry_error(std::string_view entry);

}  // namespace sigil::net
