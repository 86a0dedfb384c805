// signal-cli's JSON-RPC 2.0 interface (`signal-cli -a ACCOUNT daemon --http HOST:PORT`, POST /api/v1/rpc) as
// blocking calls over the shared net::HttpClient (architecture: channels use net/). signal-cli has no token:
// it must listen on loopback (or a private network), which is the set-up's job (docs/channels/signal.md).
//
// What it promises:
// - Every call ends with one RpcOutcome: Ok (a JSON-RPC result), Refused (a JSON-RPC error: signal-cli's code
//   and message as it sent them, or an HTTP 4xx), NotSent (the request never reached signal-cli: no
//   connection) or Unknown (it may have reached it but no answer came: a time-out after sending, a dropped
//   connection, a 5xx, an answer that is not JSON-RPC).
// - signal-cli's rate-limit failure (error -5, every result RATE_LIMIT_FAILURE: nothing went out) is waited
//   out (the largest retryAfterSeconds, at most max_wait) and the call made again; a NotSent outcome is made
//   again too. An Unknown outcome is made again only for a call marked `repeatable` (reading, typing, an
//   edit, a delete, a reaction: made twice, they show nothing new); a new message (`send`) reaches people
//   and Signal has no idempotency key, so it is never repeated blindly: its Unknown outcome goes to the
//   caller (the outbox's in-doubt state).
// - Requests carry a fresh numeric id; an answer with another id is Unknown.
// - Thread-safe; stop() cancels requests under way and wakes every waiting call, which then ends NotSent
//   "stopped".
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "sigil/base/result.h"
#include "sigil/channels/platform_api.h"

namespace sigil::channels::signal {

struct RpcOutcome {
  using Kind = CallEnd;
  Kind kind = Kind::NotSent;
  int status = 0;             // HTTP status (0: none)
  std::int64_t code = 0;      // Refused: the JSON-RPC error code (-1 user error, -5 rate limit, -32601, …)
  std::string error;          // Refused: signal-cli's message; NotSent/Unknown: why
  boost::json::value result;  // Ok: the result (null for a 201 answer); Refused: error.data
  int retries = 0;

  bool ok() const { return kind == Kind::Ok; }
  // "ok", "-1 Failed to send message", "outcome unknown: …", "not sent: …".
  std::string summary() const;
  // Ok: result.timestamp, the sent message's id (0 when absent).
  std::int64_t timestamp() const;
};

struct RpcOptions {
  int max_attempts = 4;
  std::chrono::seconds max_wait{60};
  std::chrono::milliseconds retry_pause{500};
  std::chrono::milliseconds request_timeout{60'000};  // signal-cli waits on Signal's servers for a send
};

class RpcApi final : public PlatformApi {
 public:
  // `rpc_url`: signal-cli's address ("http://127.0.0.1:8080"), with or without a trailing slash.
  RpcApi(net::HttpClient& client, std::string rpc_url, RpcOptions options = {});

  RpcOutcome call(std::string_view method, boost::json::object params, bool repeatable);

  // GET /api/v1/check: true when signal-cli answered 200.
  bool check();

  const std::string& base_url() const { return api_url_; }
  net::CallStats stats() const { return paced_stats(); }

 private:
  RpcOutcome once(std::string_view method, const boost::json::object& params);

  RpcOptions options_;
  std::atomic<std::int64_t> next_id_{1};
};

}  // namespace sigil::channels::signal
