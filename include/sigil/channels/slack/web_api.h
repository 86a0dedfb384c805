// Slack's Web API (https://slack.com/api/<method>) as blocking calls over the shared net::HttpClient
// (architecture: channels use net/). Every request is a POST with `Authorization: Bearer <token>` and a
// urlencoded form (structured arguments as JSON text), which every method takes.
//
// What it promises:
// - Every call ends with one ApiOutcome: Ok (HTTP 200 with `"ok": true`; `body` holds the answer), Refused
//   (Slack answered with an error: HTTP 200 with `"ok": false` and Slack's `error` code as it sent it, or an
//   HTTP 4xx), NotSent (the request never reached Slack: no connection) or Unknown (it may have reached Slack
//   but no answer came: a time-out after sending, a dropped connection, a 5xx).
// - A 429 is waited out (its Retry-After, at most max_wait; a longer wait fails the call NotSent "rate
//   limited") and the call made again: a 429 means Slack did nothing, so this is always safe. A NotSent
//   outcome is made again too. An Unknown one is made again only for a call marked `repeatable` (reading,
//   reactions, edits, an upload's first two steps); chat.postMessage and files.completeUploadExternal show
//   something new each time and Slack has no idempotency key, so they are never repeated blindly: their
//   Unknown outcome goes to the caller (the outbox's in-doubt state).
// - chat.postMessage (and an upload's completion, which posts a message) keeps Slack's pace of about one
//   message a second per channel (with a short burst) before the call, instead of learning it from a 429.
// - The token never appears in any outcome, log record or stats: errors name only the host.
// - Thread-safe; stop() cancels requests under way and wakes every waiting call, which then ends NotSent
//   "stopped".
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sigil/base/result.h"
#include "sigil/channels/platform_api.h"

namespace sigil::channels {
class SendPace;
}

namespace sigil::channels::slack {

struct ApiOutcome {
  using Kind = CallEnd;
  Kind kind = Kind::NotSent;
  int status = 0;            // HTTP status (0: none)
  std::string error;         // Refused: Slack's error code ("channel_not_found"); NotSent/Unknown: why
  boost::json::object body;  // Ok: the answer; Refused: Slack's error object when it sent one
  int retries = 0;           // calls made again before this outcome

  bool ok() const { return kind == Kind::Ok; }
  // "invalid_name", "HTTP 404 unknown_method", "outcome unknown: …", "not sent: …".
  std::string summary() const;
};

struct ApiOptions {
  int max_attempts = 4;
  std::chrono::seconds max_wait{60};  // longest Retry-After a call accepts
  std::chrono::milliseconds retry_pause{500};
  std::chrono::milliseconds request_timeout{30'000};
  double posts_per_second = 1;  // chat.postMessage per channel (Slack: about 1 a second); 0: unpaced
  unsigned post_burst = 3;
};

// One argument of a method: its name and its value as Slack takes it in a form (text, or JSON text).
using ApiArgs = std::vector<std::pair<std::string, std::string>>;

// A file sent by upload_file(): its name (Slack derives the type from it), title and bytes.
struct UploadFile {
  std::string filename;
  std::string title;
  std::string data;
};

using ApiStats = net::CallStats;

class WebApi final : public PlatformApi {
 public:
  // `api_url` with or without a trailing slash ("https://slack.com/api").
  WebApi(net::HttpClient& client, std::string api_url, std::string token, ApiOptions options = {});
  ~WebApi();

  ApiOutcome call(std::string_view method, const ApiArgs& args, bool repeatable);

  // chat.postMessage: `text` as mrkdwn, in `thread_ts`'s thread when given; never repeated after Unknown.
  ApiOutcome post_message(const std::string& channel, const std::string& text, const std::string& thread_ts);
  // reactions.add with a name without colons; `already_reacted` counts as Ok (the reaction is there).
  ApiOutcome add_reaction(const std::string& channel, const std::string& ts, const std::string& name);
  // The three steps: files.getUploadURLExternal, the bytes POSTed to its upload_url, then
  // files.completeUploadExternal into `channel` (and `thread_ts`'s thread) with `comment` as the message's
  // text. The first two steps show nothing and are made again from the start when they fail; the last one
  // is never repeated after Unknown. Ok's body is the completion's answer.
  ApiOutcome upload_file(const std::string& channel, const std::string& thread_ts, const UploadFile& file,
                         const std::string& comment);

  // A user's file (its url_private or url_private_download), at most `max_bytes`, with the token. Only from
  // Slack's file host (https://files.slack.com) or the API's own origin (a test server): any other host is
  // refused, so a message cannot aim sigil (and its token) at another host. Slack answers a request it does
  // not accept with its HTML sign-in page: an HTML answer is an error, never a file.
  Result<std::string, net::DownloadError> download(std::string_view url, std::size_t max_bytes);

  ApiStats stats() const;

 private:
  ApiOutcome once(const std::string& url, const std::string& content_type, const std::string& body,
                  bool with_token);
  ApiOutcome send(std::string_view method, const ApiArgs& args, bool repeatable, const std::string& pace_key);

  ApiOptions options_;
  std::unique_ptr<SendPace> posts_;
};

// The account a bot token names without a call: "<n1>-<n2>", the token's two numeric parts
// (`xoxb-<n1>-<n2>-<secret>`: the workspace's and the bot user's numbers, not the secret), "unknown" for a
// token of another shape. It keys the store's inbound records, so it does not change between runs.
std::string bot_account(std::string_view bot_token);

// The form body of `args`: name=value pairs, percent-encoded, joined by '&'.
std::string form_body(const ApiArgs& args);

}  // namespace sigil::channels::slack
