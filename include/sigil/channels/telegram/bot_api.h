// The Telegram Bot API as blocking calls over the shared net::HttpClient (architecture: channels use net/).
// POST https://api.telegram.org/bot<token>/<method> with a JSON body, or multipart/form-data for uploads.
//
// What it promises:
// - Every call ends with one Outcome: Ok (Telegram answered ok:true, `result` set), Refused (Telegram
//   answered ok:false: error_code and description as it sent them), NotSent (the request never reached
//   Telegram: no connection; safe to send again) or Unknown (the request may have reached Telegram but no
//   answer came: a time-out after sending, a dropped connection). Telegram has no idempotency key, so an
//   Unknown send must not be repeated blindly: this class never repeats one, callers report it.
// - 429 Too Many Requests with parameters.retry_after: the call waits that long (at most max_retry_after)
//   and is made again, up to max_attempts in all; a 429 means Telegram did nothing, so this is safe. A
//   NotSent failure is retried the same way after a short pause. Both count as retries in stats().
// - The whole bot is paced (options: ~30 messages a second across all chats, 20 a minute in each group): a
//   call that makes or changes a message waits for its turn before it is made (channels/send_pace.h),
//   counted as paced in stats(); a stop while it waits ends it NotSent "stopped".
// - The bot token never appears in any outcome, log record or stats: errors name only the host.
// - Thread-safe; stop() cancels requests under way (a cancelled send is Unknown) and wakes every waiting
//   call, which then ends NotSent "stopped".
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sigil/base/result.h"
#include "sigil/channels/platform_api.h"

namespace sigil::channels::telegram {

struct ApiOutcome {
  using Kind = CallEnd;
  Kind kind = Kind::NotSent;
  boost::json::value result;  // Ok
  int error_code = 0;         // Refused: Telegram's error_code (400, 403, 409, 429, ...)
  std::string description;    // Refused: Telegram's description; NotSent/Unknown: the network error
  int retries = 0;            // 429 waits and NotSent repeats made before this outcome

  bool ok() const { return kind == Kind::Ok; }
  // One line for reports and logs: "400 Bad Request: can't parse entities ...", "outcome unknown: ...".
  std::string summary() const;
};

// A file part of an upload.
struct UploadFile {
  std::string field;  // "photo", "document", "voice", ...
  std::string filename;
  std::string content_type;
  std::string data;
};

struct BotApiOptions {
  int max_attempts = 3;
  std::chrono::seconds max_retry_after{60};  // a longer 429 wait fails the call instead
  std::chrono::milliseconds not_sent_pause{1000};
  std::chrono::milliseconds request_timeout{30'000};
  // The whole bot's pace for calls that make or change a message (send*, edit*, copy/forward; not
  // sendChatAction): Telegram's ~30 messages a second across all chats (its Bot FAQ). 0: unpaced.
  double messages_per_second = 30;
  unsigned message_burst = 30;
  // The same calls to one group, supergroup or channel (a negative chat_id): Telegram's 20 a minute.
  // 0: unpaced.
  unsigned group_messages_per_minute = 20;
};

using BotApiStats = net::CallStats;

class BotApi final : public PlatformApi {
 public:
  // `api_url` without a trailing slash ("https://api.telegram.org"); `token` as BotFather gave it.
  BotApi(net::HttpClient& client, std::string api_url, std::string token, BotApiOptions options = {});
  ~BotApi();

  // A JSON call. `timeout` overrides options.request_timeout (getUpdates: its long-poll time plus a margin).
  ApiOutcome call(std::string_view method, const boost::json::object& params,
                  std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // A multipart call: `params` become form fields (strings as they are, other values as JSON).
  ApiOutcome upload(std::string_view method, const boost::json::object& params, const UploadFile& file);

  // The bytes of a file Telegram keeps for the bot (getFile's file_path), GET <api_url>/file/bot<token>/
  // <file_path>: at most max_bytes (a longer file is an error, never cut), or why not
  // (HttpResult::download_failure: "larger than N bytes", …; it names only the host: the URL holds the
  // token). Counted in stats() as one call.
  Result<std::string, net::DownloadError> download(std::string_view file_path, std::size_t max_bytes);

  // The reactions a group's admins allow (getChat's available_reactions, emoji only, as Telegram lists them),
  // asked once and kept for ten minutes per chat; nullopt: the chat does not restrict them (every emoji of
  // telegram_reaction_emoji()), or getChat failed (then Telegram's own answer to the reaction decides).
  // Private chats (positive ids) restrict nothing and are never asked.
  std::optional<std::vector<std::string>> chat_reactions(std::int64_t chat_id);

  BotApiStats stats() const;
  // The bot's id: the digits before ':' in the token (not a secret; names the account in the store).
  const std::string& bot_id() const { return bot_id_; }

 private:
  ApiOutcome once(std::string_view method, const std::string& content_type, const std::string& body,
                  std::chrono::milliseconds timeout);
  ApiOutcome with_retries(std::string_view method, const std::string& content_type, const std::string& body,
                          std::chrono::milliseconds timeout);

  std::string bot_id_;
  BotApiOptions options_;
  // Waits for the bot's and the group's pace when `method` makes or changes a message; false: stopped.
  bool paced(std::string_view method, const boost::json::object& params);

  std::unique_ptr<SendPace> group_pace_;  // per group, keyed by chat_id (PlatformApi's pace_: the whole bot)

  struct ChatReactions {
    std::chrono::steady_clock::time_point asked;
    std::optional<std::vector<std::string>> allowed;
  };
  std::mutex reactions_mu_;
  std::unordered_map<std::int64_t, ChatReactions> reactions_;
};

// Bot API 10.1's reaction emoji (73), without U+FE0F: what setMessageReaction accepts from a bot.
const std::vector<std::string>& telegram_reaction_emoji();

}  // namespace sigil::channels::telegram
