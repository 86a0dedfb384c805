// Blocking whole-response requests that can all be cancelled from another thread: what the chat platforms'
// REST clients (channels/telegram, channels/discord) make their calls with.
//
// Promises: fetch() blocks until the request ended (http_fetch.h's result); cancel_all() cancels every
// request under way and every one started after it (a cancelled request ends with NetErrorKind::cancelled).
// Thread-safe. StoppableCalls adds what both clients keep beside their requests: a stop that also wakes a
// retry's pause, and the counts of their calls.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "sigil/base/result.h"
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

// The counts a chat platform's API client keeps of its calls.
struct CallStats {
  std::uint64_t calls = 0;
  std::uint64_t retries = 0;
  std::uint64_t failures = 0;
  std::uint64_t paced = 0;  // calls that waited for the platform's bot-wide pace before they were made
  std::string last_error;   // the route or method and the summary of the last failed call
};

// Why a whole-file GET brought no file. `too_large` is the one failure callers answer differently (the
// sender is told the limit, not a network error), so it is a flag and never read from the message.
struct DownloadError {
  bool too_large = false;  // the body passed max_bytes (HttpResult::truncated)
  std::string message;     // one line: "larger than N bytes", the network error, "HTTP <status>"
};

class StoppableCalls {
 public:
  HttpResult fetch(HttpClient& client, HttpRequest request, std::size_t max_body) {
    return fetches_.fetch(client, std::move(request), max_body);
  }
  // A whole-file GET: its bytes, or why not (the message is HttpResult::download_failure's); counted as one
  // call, a failed one with last_error "download: <why>".
  Result<std::string, DownloadError> download(HttpClient& client, HttpRequest request, std::size_t max_bytes);
  // Waits `how_long`; false when stop() came first (or before).
  bool pause(std::chrono::milliseconds how_long);
  // Cancels the requests under way and every later one, and wakes a pause.
  void stop();
  bool stopped() const { return stopped_.load(); }
  CallStats stats() const;
  // update(stats) under the lock, for a call's counts that change together.
  template <class Update>
  void count(Update&& update) {
    std::lock_guard lock(mu_);
    update(stats_);
  }

 private:
  std::atomic<bool> stopped_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  CallStats stats_;
  BlockingFetches fetches_;
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
