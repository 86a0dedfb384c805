// What went wrong with an outgoing connection or request, in a form callers can both branch on and show.
//
// Promises: `kind` says which phase failed, so a caller decides what to retry without reading text;
// `message` is one line that names the peer ("cannot connect to api.example.com:443: Connection
// refused"); `detail` is the bare cause without the peer ("Connection refused", "no data for 60s (idle
// time-out)") for callers that build their own sentence. Neither ever contains request headers or bodies
// (no keys leak into logs).
#pragma once

#include <string>
#include <string_view>

#include "sigil/text/enum_names.h"

namespace sigil::net {

enum class NetErrorKind {
  bad_url,               // the URL could not be parsed or has an unsupported scheme
  bad_request,           // a method or header would corrupt the request (CR, LF, NUL): nothing was sent
  cancelled,             // cancel() or the owning client was destroyed
  resolve_failed,        // DNS gave no address
  connect_failed,        // every address refused or was unreachable
  connect_timeout,       // DNS + TCP + TLS did not finish within the connect time-out
  tls_verify_failed,     // the peer's certificate or host name did not verify: never worth retrying
  tls_failed,            // the TLS handshake failed for another reason
  send_failed,           // the connection broke while sending the request
  send_timeout,          // sending the request took longer than the first-byte time-out
  first_byte_timeout,    // no response head within the first-byte time-out
  lost_before_response,  // the connection ended before a complete response head
  bad_response,          // the response head could not be parsed (or the WebSocket upgrade was refused)
  idle_timeout,          // no body data for the idle time-out
  broken,                // the connection broke inside the body
  deadline,              // the caller's overall deadline passed (in whatever phase)
  internal,              // an unexpected exception inside the client
};

struct NetError {
  NetErrorKind kind = NetErrorKind::internal;
  std::string message;  // one line, names the peer
  std::string detail;   // one line, the bare cause
};

inline constexpr text::EnumNames<NetErrorKind::internal> kNetErrorKindNames{
    {"bad_url", "bad_request", "cancelled", "resolve_failed", "connect_failed", "connect_timeout",
     "tls_verify_failed", "tls_failed", "send_failed", "send_timeout", "first_byte_timeout",
     "lost_before_response", "bad_response", "idle_timeout", "broken", "deadline", "internal"},
    "unknown"};

constexpr std::string_view to_string(NetErrorKind kind) noexcept { return kNetErrorKindNames.name(kind); }

}  // namespace sigil::net
