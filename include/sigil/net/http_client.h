// One HTTP(S)/1.1 client for everything sigil calls out to (model APIs, chat platforms, web pages).
//
// Promises:
// - start() never blocks and never calls the handler itself. The exchange runs on the IoThreads, as a
//   coroutine: an open request costs a socket and a little memory, never a thread.
// - The handler is called from an io thread, one call at a time, in order: on_head at most once (when a
//   response head arrived), on_body any number of times with the body as it arrives (chunked framing
//   removed, nothing buffered beyond one read), then on_end exactly once: without an error when the
//   whole response was read, with a NetError otherwise.
// - HttpCall::cancel() may be called from any thread, any number of times, also from inside a handler
//   callback; on_end(cancelled) follows soon unless the response had already been read completely.
// - https:// verifies the certificate chain (the system trust store, or ca_file) and the host name (or
//   the IP address), and sends SNI. There is no switch to turn verification off.
// - Every socket is opened close-on-exec before it connects: a child process never inherits one.
// - Keep-alive: a connection whose response was read completely and that neither side asked to close
//   goes back to a pool per scheme://host:port (at most max_idle_per_host, for at most keep_idle_for).
//   Before reuse a pooled connection is checked for a close or stray bytes from the server; if a reused
//   connection still fails before any response byte (the server closed it at that moment), the request
//   is sent once more on a fresh connection, so reuse never turns into an error the caller sees (unless
//   HttpRequest::resend_on_stale_connection is false: a request that must not take effect twice).
// - No redirects are followed, no retries beyond the one above: callers own their policy (see
//   retry_after.h).
// - Destroying the client cancels open requests and waits until each handler got on_end. Do not destroy
//   it from inside one of its handler callbacks.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sigil/net/error.h"
#include "sigil/net/http_message.h"
#include "sigil/net/io_threads.h"

namespace sigil::net {

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  virtual void on_head(const HttpResponseHead& head) = 0;
  virtual void on_body(std::string_view chunk) = 0;
  virtual void on_end(const std::optional<NetError>& error) = 0;
};

class HttpCall {
 public:
  virtual ~HttpCall() = default;
  virtual void cancel() = 0;
};

struct HttpClientConfig {
  std::string ca_file;  // PEM file of trusted CAs instead of the system's (tests, private CAs)
  std::string user_agent = "sigil/0.1";
  std::size_t max_idle_per_host = 4;
  // Shorter than the usual server keep-alive (60 s and more), so a pooled connection rarely meets a
  // server that is closing it.
  std::chrono::milliseconds keep_idle_for{15'000};
};

class HttpClient {
 public:
  // Throws std::invalid_argument for an unreadable ca_file. The system trust store is read at the first
  // https:// request (reading it takes a noticeable moment).
  HttpClient(std::shared_ptr<IoThreads> io, HttpClientConfig config = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // The returned handle may be dropped: the request still runs to its end. A bad URL ends with
  // on_end(bad_url), on an io thread like every other outcome.
  std::shared_ptr<HttpCall> start(HttpRequest request, std::shared_ptr<HttpHandler> handler);

  // TCP connections opened so far (keep-alive shows as fewer connections than requests).
  std::size_t connections_opened() const noexcept;
  // Connections waiting in the pool now.
  std::size_t idle_connections() const;

  IoThreads& io() noexcept { return *io_; }

  struct Impl;

 private:
  std::shared_ptr<IoThreads> io_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace sigil::net
