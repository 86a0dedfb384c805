#include "sigil/net/resolver.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

namespace sigil::net {
namespace {

struct Lookup {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  Result<std::vector<IpAddress>, std::string> result = std::vector<IpAddress>{};
};

Result<std::vector<IpAddress>, std::string> getaddrinfo_all(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0) return Failure<std::string>{"cannot resolve " + host + ": " + ::gai_strerror(rc)};
  std::vector<IpAddress> out;
  for (const addrinfo* a = list; a != nullptr; a = a->ai_next) {
    IpAddress address;
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      std::memcpy(address.bytes.data(), &in->sin_addr, 4);
      address.v4 = true;
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      std::memcpy(address.bytes.data(), &in6->sin6_addr, 16);
      address.v4 = false;
    } else {
      continue;
    }
    if (std::find(out.begin(), out.end(), address) == out.end()) out.push_back(address);
  }
  ::freeaddrinfo(list);
  if (out.empty()) return Failure<std::string>{"cannot resolve " + host + ": no IPv4 or IPv6 address"};
  return out;
}

class SystemResolver final : public Resolver {
 public:
  Result<std::vector<IpAddress>, std::string> resolve(std::string_view host,
                                                      std::chrono::milliseconds timeout) override {
    if (auto literal = IpAddress::parse(host)) return std::vector<IpAddress>{*literal};
    auto lookup = std::make_shared<Lookup>();
    // Detached: a lookup that outlives its caller finishes alone and only touches the shared Lookup.
    std::thread([lookup, name = std::string(host)] {
      auto result = getaddrinfo_all(name);
      std::lock_guard lock(lookup->mutex);
      lookup->result = std::move(result);
      lookup->done = true;
      lookup->done_cv.notify_all();
    }).detach();
    std::unique_lock lock(lookup->mutex);
    if (!lookup->done_cv.wait_for(lock, timeout, [&] { return lookup->done; }))
      return Failure<std::string>{"cannot resolve " + std::string(host) + ": no answer within " +
                                  std::to_string(timeout.count()) + "ms"};
    return lookup->result;
  }
};

}  // namespace

std::shared_ptr<Resolver> system_resolver() { return std::make_shared<SystemResolver>(); }

}  // namespace sigil::net
