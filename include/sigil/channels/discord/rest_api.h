// Discord's REST API v10 as blocking calls over the shared net::HttpClient (architecture: channels use net/).
// Every request carries `Authorization: Bot <token>`; bodies are JSON, or multipart/form-data with
// `payload_json` and `files[n]` for attachments.
//
// What it promises:
// - Every call ends with one Outcome: Ok (2xx; `body` holds the JSON answer, null for 204), Refused (Discord
//   answered with an error: status, Discord's `code` and `message` as it sent them), NotSent (the request
//   never reached Discord: no connection) or Unknown (it may have reached Discord but no answer came: a
//   time-out after sending, a dropped connection, a 5xx without Discord's answer).
// - Rate limits (rate_limits.h): a request waits while its bucket or the global limit says so (at most
//   max_wait; a longer wait fails the call NotSent "rate limited"), and a 429 is waited out and the call made
//   again. A 429 means Discord did nothing, so this is always safe. Before that, every request keeps the
//   bot's global pace (Discord: 50 requests a second across all routes; channels/send_pace.h), counted
//   as paced in stats().
// - A call marked `repeatable` (every call sigil makes: reading, editing, deleting, reactions, typing, and
//   creating a message with a nonce + enforce_nonce, which Discord deduplicates) is made again after a
//   NotSent, Unknown or 5xx outcome, after a short growing pause, up to max_attempts in all. A call not
//   marked so is repeated only after NotSent and 429.
// - The token never appears in any outcome, log record or stats: errors name only the host.
// - Thread-safe; stop() cancels requests under way and wakes every waiting call, which then ends NotSent
//   "stopped".
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/base/result.h"
#include "sigil/channels/discord/rate_limits.h"
#include "sigil/channels/platform_api.h"

namespace sigil::channels::discord {

struct RestOutcome {
  using Kind = CallEnd;
  Kind kind = Kind::NotSent;
  int status = 0;           // HTTP status (0: none)
  int code = 0;             // Refused: Discord's JSON error code (50035, 10008, ...)
  std::string message;      // Refused: Discord's message; NotSent/Unknown: the network error
  boost::json::value body;  // Ok: the answer's JSON (null for 204); Refused: Discord's error object
  int retries = 0;          // calls made again before this outcome

  bool ok() const { return kind == Kind::Ok; }
  // "400 50035 Invalid Form Body", "outcome unknown: …", "not sent: …".
  std::string summary() const;
};

// One file of a multipart message: sent as files[index].
struct RestFile {
  std::string filename;
  std::string content_type;
  std::string data;
};

struct RestRequest {
  std::string method = "GET";
  std::string path;                        // "/channels/123/messages", without the API prefix
  std::optional<boost::json::value> json;  // the body (payload_json when there are files)
  std::vector<RestFile> files;
  bool repeatable = true;  // see above
};

struct RestOptions {
  int max_attempts = 4;
  std::chrono::seconds max_wait{60};  // longest rate-limit wait a call accepts
  std::chrono::milliseconds retry_pause{500};
  std::chrono::milliseconds request_timeout{30'000};
  double requests_per_second = 50;  // the bot's global limit, kept before a 429 says so; 0: unpaced
  unsigned request_burst = 50;
};

using RestStats = net::CallStats;

class RestApi final : public PlatformApi {
 public:
  // `api_url` without a trailing slash ("https://discord.com/api/v10").
  RestApi(net::HttpClient& client, std::string api_url, std::string token, RestOptions options = {});

  RestOutcome call(const RestRequest& request);

  // The bytes of an attachment a user sent, at most `max_bytes`. Only from Discord's CDN
  // (https://cdn.discordapp.com, https://media.discordapp.net) or the API's own origin (a proxy or a test
  // server): a URL anywhere else is refused, so a message cannot aim sigil at another host. No token is sent
  // (the CDN's URLs are signed). Errors: net::StoppableCalls::download's.
  Result<std::string, net::DownloadError> download(std::string_view url, std::size_t max_bytes);

  RestStats stats() const { return paced_stats(); }
  const RateLimits& rate_limits() const { return limits_; }

 private:
  RestOutcome once(const RestRequest& request, const std::string& content_type, const std::string& body);

  RestOptions options_;
  RateLimits limits_;
};

// The bot's user id from its token, whose first part is the id in base64 (not a secret: it names the account
// in the store before the gateway's READY says it); "unknown" when the token has no such part.
std::string bot_id_from_token(std::string_view token);

}  // namespace sigil::channels::discord
