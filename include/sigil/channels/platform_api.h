// What a chat platform's HTTP API client (Telegram's telegram::BotApi, Discord's discord::RestApi) keeps
// alike, and how one of its calls ends.
//
// What it promises:
// - The API's address is kept without trailing slashes; the token is kept for the client's requests and
//   never put in an outcome, a log record or stats by this class.
// - stop() cancels the requests under way and every later one and wakes every waiting call; stopped() says
//   whether it came.
// - paced_stats(): the calls' counts (net::StoppableCalls) with `paced` = the waits of the bot's global
//   pace, plus any other pace's waits the client names.
// - count_attempt(): one attempt of a call that may be made again is counted as a call when it reached the
//   platform, as a retry when it is to be made again (logged at info as the client's retry event, with the
//   method or route and the error), else, when it failed, as a failure whose last_error is "what: summary".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sigil/net/blocking_fetch.h"
#include "sigil/net/http_client.h"

namespace sigil::channels {

class SendPace;

// How a platform call ended: Ok (the platform did it), Refused (it answered with an error), NotSent (the
// request never reached it: safe to send again) or Unknown (it may have reached it, but no answer came).
enum class CallEnd : unsigned char { Ok, Refused, NotSent, Unknown };

// One line for reports and logs: "ok", `what` (Refused: the platform's error as it sent it), "not sent: "
// or "outcome unknown: " and `what` (the network error).
std::string call_summary(CallEnd end, std::string_view what);

class PlatformApi {
 public:
  PlatformApi(const PlatformApi&) = delete;
  PlatformApi& operator=(const PlatformApi&) = delete;

  void stop() { calls_.stop(); }
  bool stopped() const { return calls_.stopped(); }

 protected:
  // `per_second` and `burst`: the bot's global pace (SendPace; 0 per second: unpaced).
  PlatformApi(net::HttpClient& client, std::string_view api_url, std::string token, double per_second,
              unsigned burst);
  ~PlatformApi();
  net::CallStats paced_stats(std::uint64_t other_waits = 0) const;

  // `o`'s attempt at the call `what` (its method or route); `again`: it is to be made again. A retry is
  // logged as `retry_event` ("slack-retry") with `what_key` naming `what`.
  template <class Outcome>
  void count_attempt(std::string_view what, const Outcome& o, bool again, std::string_view retry_event,
                     std::string_view what_key) {
    count_attempt({.what = what,
                   .reached = o.status != 0 || o.kind != Outcome::Kind::NotSent,
                   .ok = o.ok(),
                   .again = again,
                   .summary = o.summary()},
                  retry_event, what_key);
  }

  net::HttpClient& client_;
  const std::string api_url_;
  const std::string token_;
  net::StoppableCalls calls_;  // requests under way (stop() cancels them) and their counts
  std::unique_ptr<SendPace> pace_;

 private:
  struct Attempt {
    std::string_view what;
    bool reached = false;  // it reached the platform or an answer came
    bool ok = false;
    bool again = false;
    std::string summary;  // the outcome's one line
  };
  void count_attempt(const Attempt& a, std::string_view retry_event, std::string_view what_key);
};

}  // namespace sigil::channels
