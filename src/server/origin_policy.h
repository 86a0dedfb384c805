// Which browsers' requests the gateway answers: the `Host` a request names and the `Origin` a browser sends.
//
// Loopback is no trust boundary: any page the user visits can make the browser talk to 127.0.0.1, and a page
// on a name that the attacker rebinds to 127.0.0.1 (DNS rebinding) is even same-origin with it. Two checks
// stop both, before any route runs:
// - host_allowed(): the Host header must name this gateway: its listen address, `localhost`, the loopback
//   addresses when it listens on one, `public_url`'s host, or `[server] allowed_hosts` ("*" allows any).
//   When it listens on a wildcard address (0.0.0.0, ::) any IP literal is its own too (names must be listed).
//   Only the host name counts, not the port. A request without Host (an HTTP/1.0 tool) passes.
// - origin_allowed(): a browser's Origin must be the gateway's own: http://host:port as the request's
//   (allowed) Host names it, the listen address and `localhost` on the bound port, `public_url`'s origin, or
//   one of `[server] allowed_origins`. "null" (sandboxed documents, file: pages) is never allowed. Requests
//   without Origin (curl, SDKs, the `openai` client) are not browsers' and pass.
// Pure: no sockets, so it is tested on its own (tests/server/origin_policy_test.cpp).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::server {

struct OriginPolicyConfig {
  std::string listen_host;  // as configured: "127.0.0.1", "localhost", "::1", "0.0.0.0", ...
  unsigned short port = 0;  // the bound port
  std::string public_url;   // "" or e.g. "https://chat.example.com"
  std::vector<std::string> allowed_origins;
  std::vector<std::string> allowed_hosts;
};

class OriginPolicy {
 public:
  explicit OriginPolicy(const OriginPolicyConfig& config);

  bool host_allowed(std::string_view host_header) const;
  // `host_header` is the request's Host: an Origin naming the same authority is same-origin.
  bool origin_allowed(std::string_view origin, std::string_view host_header) const;

  // "scheme://host[:port]" lower-cased, the default port dropped; "" when `origin` is not of that form.
  static std::string normalize_origin(std::string_view origin);
  // The host name of a Host header ("Name:8080" → "name", "[::1]:80" → "::1"); "" when malformed.
  static std::string host_name(std::string_view host_header);

 private:
  bool any_host_ = false;
  bool any_ip_literal_ = false;
  std::set<std::string> hosts_;    // lower-case names and IP literals (IPv6 without brackets)
  std::set<std::string> origins_;  // normalized
};

}  // namespace sigil::server
