// The data of one outgoing HTTP exchange: the request a caller builds, the time limits it runs under,
// and the response head it gets back. Plain values; no I/O.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::net {

struct Header {
  std::string name;
  std::string value;
};
using Headers = std::vector<Header>;

// The first header named `name` (ASCII case-insensitive), or nullptr.
const std::string* find_header(const Headers& headers, std::string_view name) noexcept;

struct HttpTimeouts {
  std::chrono::milliseconds connect{10'000};     // DNS + TCP + TLS handshake
  std::chrono::milliseconds first_byte{60'000};  // sending the request + waiting for the response head
  std::chrono::milliseconds idle{60'000};        // the longest silence inside the body
  // The whole exchange must end by then; each phase's limit is shortened to it, and a phase cut short
  // by it fails with NetErrorKind::deadline rather than the phase's own kind.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // absolute http:// or https://
  // Sent as given. Host, User-Agent and Content-Length are added when absent.
  Headers headers;
  std::string body;
  HttpTimeouts timeouts;
  // Whether the request may be sent once more when a reused keep-alive connection ends after the request
  // was sent and before any response byte (http_client.h). Usually the server had closed the connection
  // and processed nothing, but a server that processed it and then dropped the connection looks the same:
  // set false for a request that must not take effect twice (a chat message: Telegram has no idempotency
  // key), and the caller gets lost_before_response instead, an outcome it must treat as unknown.
  bool resend_on_stale_connection = true;
  // An IP address to connect to instead of resolving the URL's host (the SSRF guard's checked address,
  // ssrf_guard.h). The Host header, TLS SNI and the certificate's host-name check still use the URL's host,
  // and the connection is pooled apart from connections made by resolving. Empty: resolve the host.
  std::string connect_address;
};

struct HttpResponseHead {
  int status = 0;
  std::string reason;
  Headers headers;  // in arrival order, names as the server spelt them

  const std::string* find(std::string_view name) const noexcept { return find_header(headers, name); }
};

}  // namespace sigil::net
