// Name resolution as an interface, so the SSRF guard asks exactly once and a test can answer for the DNS.
//
// Promises of every Resolver: resolve() returns the addresses of `host` (at least one) or a one-line
// reason; it blocks the calling thread for at most `timeout`. An IP literal is returned as itself without
// asking anyone.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/base/result.h"
#include "sigil/net/ip_address.h"

namespace sigil::net {

class Resolver {
 public:
  virtual ~Resolver() = default;
  virtual Result<std::vector<IpAddress>, std::string> resolve(std::string_view host,
                                                              std::chrono::milliseconds timeout) = 0;
};

// The system's resolver (getaddrinfo: /etc/hosts, then DNS). getaddrinfo has no time limit of its own, so
// it runs on a thread of its own and a caller that waited `timeout` gets an error while it finishes alone.
std::shared_ptr<Resolver> system_resolver();

}  // namespace sigil::net
