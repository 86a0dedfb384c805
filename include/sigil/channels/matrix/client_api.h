// Matrix's client-server API v3 (https://spec.matrix.org/v1.11/client-server-api/) as blocking calls over the
// shared net::HttpClient (architecture: channels use net/). Every request carries
// `Authorization: Bearer <access token>`; bodies are JSON, except a media upload's raw bytes.
//
// What it promises:
// - Every call ends with one ApiOutcome: Ok (2xx; `body` holds the JSON answer), Refused (the homeserver
//   answered with an error: its `errcode` and `error` as it sent them, or the HTTP status when it sent no
//   Matrix error), NotSent (the request never reached the homeserver) or Unknown (it may have reached it
//   but no answer came: a time-out after sending, a dropped connection, a 5xx).
// - A 429 (`M_LIMIT_EXCEEDED`) is waited out (its `retry_after_ms`, else Retry-After, at most max_wait; a
//   longer wait fails the call NotSent "rate limited") and the call made again: the homeserver did nothing.
//   A NotSent outcome is made again too, after a short growing pause, up to max_attempts in all.
// - A call marked `repeatable` is made again after Unknown too. Every call sigil makes is: reads, typing,
//   the media upload (a second upload only leaves an unused file), and every event sent, since events are
//   sent as `PUT …/send/{type}/{txnId}` and `PUT …/redact/{eventId}/{txnId}`, which the homeserver answers
//   with the first event_id when the same access token repeats a txnId: a repeat never shows twice.
// - The token never appears in an outcome, a log record or stats: errors name only the host.
// - Thread-safe; stop() cancels requests under way and wakes every waiting call (NotSent "stopped").
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "sigil/base/result.h"
#include "sigil/channels/platform_api.h"

namespace sigil::channels::matrix {

struct ApiOutcome {
  using Kind = CallEnd;
  Kind kind = Kind::NotSent;
  int status = 0;            // HTTP status (0: none)
  std::string errcode;       // Refused: "M_FORBIDDEN", …; empty when the answer was not a Matrix error
  std::string error;         // Refused: Matrix's `error`; NotSent/Unknown: why
  boost::json::object body;  // Ok: the answer
  int retries = 0;           // calls made again before this outcome

  bool ok() const { return kind == Kind::Ok; }
  // "M_FORBIDDEN: You are not in this room (HTTP 403)", "outcome unknown: …", "not sent: …".
  std::string summary() const;
};

struct ApiOptions {
  int max_attempts = 4;
  std::chrono::seconds max_wait{60};  // longest retry_after_ms a call accepts
  std::chrono::milliseconds retry_pause{500};
  std::chrono::milliseconds request_timeout{30'000};
};

using ApiStats = net::CallStats;

class ClientApi final : public PlatformApi {
 public:
  // `homeserver_url`: "https://matrix.example.org" (with or without a trailing slash).
  ClientApi(net::HttpClient& client, std::string homeserver_url, std::string access_token,
            ApiOptions options = {});
  ~ClientApi();

  // One request: `path` below the homeserver ("/_matrix/client/v3/account/whoami"), `json` the body ("" for
  // none). `timeout` overrides the request time-out (a /sync long poll waits longer).
  ApiOutcome call(std::string_view method, const std::string& path, const std::string& json, bool repeatable,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

  // PUT /v3/rooms/{room}/send/{type}/{txn_id}: the event_id is in body["event_id"].
  ApiOutcome send_event(const std::string& room, const std::string& type, const boost::json::object& content,
                        const std::string& txn_id);
  // PUT /v3/rooms/{room}/redact/{event}/{txn_id}.
  ApiOutcome redact(const std::string& room, const std::string& event_id, const std::string& txn_id);
  // POST /_matrix/media/v3/upload: the bytes with their type and name; content_uri in the body.
  ApiOutcome upload(const std::string& data, const std::string& content_type, const std::string& filename);
  // A user's file by its mxc:// URI from the authenticated media API (v1.11), at most `max_bytes`; only an
  // mxc:// URI is taken, so a message cannot aim sigil (and its token) at another host.
  Result<std::string, net::DownloadError> download(std::string_view mxc_uri, std::size_t max_bytes);

  ApiStats stats() const;
  const std::string& homeserver() const { return api_url_; }
  // Waits `how_long`; false when stop() came first.
  bool pause_for(std::chrono::milliseconds how_long) { return calls_.pause(how_long); }

 private:
  ApiOutcome request(std::string_view method, const std::string& path, const std::string& content_type,
                     const std::string& body, bool repeatable, std::chrono::milliseconds timeout);
  ApiOutcome once(std::string_view method, const std::string& path, const std::string& content_type,
                  const std::string& body, std::chrono::milliseconds timeout,
                  std::chrono::milliseconds& wait);

  ApiOptions options_;
};

// A path segment percent-encoded (room ids hold '!' and ':', event ids '$').
std::string path_segment(std::string_view s);

}  // namespace sigil::channels::matrix
