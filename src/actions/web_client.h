// What the network actions (search, fetch-page) share: one HTTP client, made at the first request, and a
// blocking call on it for handlers (they run on the executor's worker threads and return a result).
#pragma once

#include <memory>
#include <mutex>
#include <stop_token>

#include "sigil/net/http_client.h"
#include "sigil/net/http_fetch.h"
#include "sigil/net/io_threads.h"

namespace sigil::actions {

// An HTTP client given by the application (tests pass one), or one of our own made when first needed, so a
// gateway without network actions starts no io thread.
class SharedHttpClient {
 public:
  explicit SharedHttpClient(std::shared_ptr<net::HttpClient> given) : client_(std::move(given)) {}
  net::HttpClient& get();

 private:
  std::mutex mutex_;
  std::shared_ptr<net::IoThreads> io_;
  std::shared_ptr<net::HttpClient> client_;
};

// net::fetch, waited for. When `stop` is requested (the action timed out) the request is cancelled and
// the result says so (error kind cancelled).
net::HttpResult fetch_and_wait(net::HttpClient& client, net::HttpRequest request, std::size_t max_body,
                               const std::stop_token& stop);

}  // namespace sigil::actions
