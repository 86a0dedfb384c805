// A WebSocket client (RFC 6455) over ws:// and wss://, for gateways that push events (Discord, Slack).
//
// Promises:
// - connect() never blocks and never calls the handler itself; the connection runs on the IoThreads.
// - The handler is called from an io thread, one call at a time, in order: on_open once the upgrade
//   succeeded, on_message for each complete message, then on_close exactly once — also when connecting
//   failed (then without on_open).
// - send_text() may be called from any thread, also before on_open: messages are sent one at a time in
//   the order given. close() sends the close frame after the messages already queued, then waits for the
//   peer's; messages sent after close(), and messages arriving after our close frame left, are dropped.
// - Pings from the peer are answered (Beast does it while reading). After idle_timeout / 2 without a
//   frame we ping; after idle_timeout without any frame the connection ends with NetErrorKind::idle_timeout.
// - wss:// verifies the certificate and host name exactly as HttpClient does; every socket is opened
//   close-on-exec before it connects.
// - Destroying the client ends open connections at once (no close handshake) and waits until each handler
//   got on_close. Do not destroy it from inside one of its handler callbacks.
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

struct WebSocketOptions {
  Headers headers;                                    // sent with the upgrade request (Authorization, ...)
  std::chrono::milliseconds connect_timeout{10'000};  // DNS + TCP + TLS + the upgrade
  std::chrono::milliseconds idle_timeout{60'000};
  std::size_t max_message_bytes = 16 * 1024 * 1024;  // a bigger message ends the connection (code 1009)
};

struct WebSocketClosed {
  std::optional<NetError> error;  // unset when the peer or we closed with a close handshake
  int code = 0;                   // the close code the peer sent (1000, 4004, ...); 0 if none
  std::string reason;
};

class WebSocketHandler {
 public:
  virtual ~WebSocketHandler() = default;
  virtual void on_open() = 0;
  virtual void on_message(std::string_view data, bool binary) = 0;
  virtual void on_close(const WebSocketClosed& closed) = 0;
};

class WebSocket {
 public:
  virtual ~WebSocket() = default;
  virtual void send_text(std::string message) = 0;
  virtual void close(int code = 1000, std::string reason = {}) = 0;
};

struct WebSocketClientConfig {
  std::string ca_file;  // PEM file of trusted CAs instead of the system's
  std::string user_agent = "sigil/0.1";
};

class WebSocketClient {
 public:
  // Throws std::invalid_argument for an unreadable ca_file.
  WebSocketClient(std::shared_ptr<IoThreads> io, WebSocketClientConfig config = {});
  ~WebSocketClient();
  WebSocketClient(const WebSocketClient&) = delete;
  WebSocketClient& operator=(const WebSocketClient&) = delete;

  // A bad URL ends with on_close(bad_url), on an io thread like every other outcome.
  std::shared_ptr<WebSocket> connect(std::string url, WebSocketOptions options,
                                     std::shared_ptr<WebSocketHandler> handler);

  struct Impl;

 private:
  std::shared_ptr<IoThreads> io_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace sigil::net
