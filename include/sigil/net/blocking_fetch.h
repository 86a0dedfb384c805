// Blocking whole-response requests that can all be cancelled from another thread: what the chat platforms'
// REST clients (channels/telegram, channels/discord) make their calls with.
//
// Promises: fetch() blocks until the request ended (http_fetch.h's result); cancel_all() cancels every
// request under way and every one started after it (a cancelled request ends with NetErrorKind::cancelled).
// Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <set>

#include "sigil/net/error.h"
#include "sigil/net/http_fetch.h"

namespace sigil::net {

class BlockingFetches {
 public:
  HttpResult fetch(HttpClient& client, HttpRequest request, std::size_t max_body);
  void cancel_all();

 private:
  std::mutex mu_;
  bool cancelled_ = false;
  std::set<std::shared_ptr<HttpCall>> open_;
};

// Whether a request that failed with this error cannot have reached the server: it failed before a
// connection existed, so sending it again cannot make it take effect twice.
constexpr bool never_sent(NetErrorKind kind) noexcept {
  switch (kind) {
    case NetErrorKind::bad_url:
    case NetErrorKind::bad_request:
    case NetErrorKind::resolve_failed:
    case NetErrorKind::connect_failed:
    case NetErrorKind::connect_timeout:
    case NetErrorKind::tls_verify_failed:
    case NetErrorKind::tls_failed:
      return true;
    default:
      return false;
  }
}

}  // namespace sigil::net
