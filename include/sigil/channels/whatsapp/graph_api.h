// WhatsApp's Business Cloud API (Meta's Graph API, https://graph.facebook.com/v23.0) as blocking calls over
// the shared net::HttpClient (architecture: channels use net/): messages, read receipts with the typing
// indicator, media upload and download. Every request carries `Authorization: Bearer <access token>`.
//
// What it promises:
// - Every call ends with one GraphOutcome: Ok (HTTP 2xx; `body` holds the answer), Refused (Meta answered
//   with a Graph error: its `code`, `error_subcode`, message and `error_data.details` are read into the
//   outcome), NotSent (the request never reached Meta) or Unknown (it may have reached Meta but no answer
//   came: a time-out after sending, a dropped connection, a 5xx).
// - Throttling is waited out and the call made again, since Meta did nothing: an HTTP 429 (its Retry-After,
//   at most max_wait; longer fails the call NotSent "rate limited"), and the Graph codes Meta uses for it
//   with other statuses (4 app rate, 80007 account rate, 130429 throughput, 131056 pair rate: a growing
//   pause, as Meta gives no Retry-After for them). NotSent is made again too.
// - Unknown is made again only for calls that show nothing new (read receipts, media upload, media
//   download); a message (send) never is: WhatsApp has no idempotency key, so its Unknown outcome goes to
//   the caller (the outbox's in-doubt state), never a blind repeat.
// - The access token never appears in any outcome, log record or stats: errors name only the host.
// - Thread-safe; stop() cancels requests under way and wakes every waiting call, which then ends NotSent
//   "stopped".
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <string>
#include <string_view>

#include "sigil/base/result.h"
#include "sigil/channels/platform_api.h"

namespace sigil::channels::whatsapp {

struct GraphOutcome {
  using Kind = CallEnd;
  Kind kind = Kind::NotSent;
  int status = 0;            // HTTP status (0: none)
  std::int64_t code = 0;     // Refused: the Graph error's code (131047, 100, 190, …)
  std::int64_t subcode = 0;  // its error_subcode (0: none)
  std::string error;         // Refused: Meta's message (and details); NotSent/Unknown: why
  boost::json::object body;  // Ok: the answer
  int retries = 0;           // calls made again before this outcome

  bool ok() const { return kind == Kind::Ok; }
  // Outside the 24-hour customer-service window: only a template may be sent.
  bool outside_window() const { return kind == Kind::Refused && code == 131047; }
  // "(#131047) Re-engagement message: <details> [code 131047]", "outcome unknown: …", "not sent: …".
  std::string summary() const;
};

struct GraphOptions {
  int max_attempts = 4;
  std::chrono::seconds max_wait{60};  // longest Retry-After a call accepts
  std::chrono::milliseconds retry_pause{500};
  std::chrono::milliseconds request_timeout{30'000};
};

using GraphStats = net::CallStats;

class GraphApi final : public PlatformApi {
 public:
  // `api_url` with the version, with or without a trailing slash ("https://graph.facebook.com/v23.0").
  GraphApi(net::HttpClient& client, std::string api_url, std::string access_token,
           std::string phone_number_id, GraphOptions options = {});
  ~GraphApi();

  // POST /{phone-number-id}/messages with `message` (messaging_product and recipient_type are added); never
  // repeated after Unknown. Ok's body: {messaging_product, contacts, messages: [{id}]}.
  GraphOutcome send(boost::json::object message);
  // The read receipt of a received message, with the typing indicator when `typing` (shown until the
  // answer, or 25 s).
  GraphOutcome mark_read(const std::string& message_id, bool typing);
  // POST /{phone-number-id}/media (multipart); Ok's body: {id}.
  GraphOutcome upload(const std::string& mime_type, const std::string& filename, const std::string& data);
  // A user's media: GET /{media-id} for its short-lived URL, then that URL with the token, at most
  // `max_bytes`. The URL must be on Meta's media host (lookaside.fbsbx.com) or the API's own origin (a test
  // server): a payload cannot aim sigil, and its token, at another host.
  Result<std::string, net::DownloadError> download(const std::string& media_id, std::size_t max_bytes);

  const std::string& phone_number_id() const { return phone_number_id_; }
  GraphStats stats() const;

 private:
  GraphOutcome once(const std::string& method, const std::string& url, const std::string& content_type,
                    const std::string& body);
  GraphOutcome call(const std::string& method, const std::string& path, const std::string& content_type,
                    const std::string& body, bool repeatable, std::string_view what);

  GraphOptions options_;
  std::string phone_number_id_;
};

// Meta's codes for "too many": nothing was done, the call may be made again after a pause.
bool is_throttling(std::int64_t code);

}  // namespace sigil::channels::whatsapp
