// The inbound side of the Telegram channel: long polling getUpdates, and which messages become turns.
//
// What it promises:
// - One thread (start() .. stop()) asks getMe once (the bot's id and @username, retried until it answers),
//   then deleteWebhook (drop_pending_updates false: a webhook set before, in webhook mode, would make every
//   getUpdates a 409; its pending updates are then polled), then getUpdates(offset, timeout =
//   poll_timeout, allowed_updates ["message"]) in a loop.
// - Updates are handed over in update_id order. The offset that confirms an update to Telegram is sent
//   only with the next getUpdates, after on_update returned true for it: the consumer records an update
//   durably before it is confirmed, so a crash at any point loses none (Telegram sends it again) and the
//   consumer's record makes a second delivery harmless. When on_update returns false (its store failed)
//   the update is not confirmed and is offered again after a pause.
// - Every update goes to on_update with its verdict (admit()): text and file messages from allowed users
//   in private chats, and in groups only those that mention the bot (@username) or reply to one of its
//   messages, are Admitted; the rest say why not (the consumer logs them; they are confirmed too).
// - 409 Conflict (another poller or a webhook on the same token) and network errors are logged and
//   retried with a growing pause (1 s .. 30 s); the token never appears in a log record.
// - stop() ends a poll in progress at once (the request is cancelled) and joins the thread.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "sigil/channels/telegram/bot_api.h"
#include "sigil/channels/telegram/receiver_thread.h"

namespace sigil::channels::telegram {

// A file a user sent with a message: a photo (its largest size), document, voice note, audio or video.
struct InboundFile {
  std::string kind;  // "photo", "document", "voice", "audio", "video"
  std::string file_id;
  std::string name;       // the sender's file name; "" for photos and voice notes
  std::string mime_type;  // as Telegram says; "" for photos
  std::int64_t size = 0;  // bytes, as Telegram says; 0: not said
};

struct InboundMessage {
  std::int64_t update_id = 0;
  std::int64_t chat_id = 0;
  std::string chat_type;  // private, group, supergroup, channel
  std::int64_t from_id = 0;
  std::string from_name;  // first name, for logs and history
  std::int64_t message_id = 0;
  // The forum topic the message was written in (message_thread_id, when is_topic_message is true); 0 for a
  // message outside topics, the General topic included (a reply there carries a thread id too, but is no
  // topic message).
  std::int64_t thread_id = 0;
  std::string text;                // text, or a media message's caption; empty for other messages
  std::int64_t reply_to_from = 0;  // the author of the message this one replies to (0: not a reply)
  std::optional<InboundFile> file;
  std::string media_group_id;  // the album this message is one item of ("": none)
};

// An update as a message, or nullopt when it carries none (edits, reactions, service updates).
std::optional<InboundMessage> read_update(const boost::json::object& update);

enum class Verdict : unsigned char {
  Admitted,
  NoText,        // neither text nor a file (a sticker, a join, an update without a message)
  NotAllowed,    // the sender is not in allowed_users
  NotAddressed,  // a group message that neither mentions the bot nor replies to it
  FromBot,       // sent by a bot
};
std::string_view to_string(Verdict verdict);

struct AdmitPolicy {
  std::vector<std::int64_t> allowed_users;  // empty: anyone
  std::int64_t bot_id = 0;
  std::string bot_username;  // without '@'
};

Verdict admit(const InboundMessage& message, const AdmitPolicy& policy, bool from_bot = false);

// An update as the receivers (polling, webhook) hand it on: its id, its message and the verdict.
struct ClassifiedUpdate {
  std::int64_t update_id = 0;
  std::optional<InboundMessage> message;
  Verdict verdict = Verdict::NoText;
};
ClassifiedUpdate classify_update(const boost::json::object& update, const AdmitPolicy& policy);

// The policy for these allowed users with the bot's id and @username from getMe (asked until it answers; see
// call_until_ok.h), with a "telegram-ready" log line; nullopt when stopped first.
std::optional<AdmitPolicy> learn_bot_identity(BotApi& api, const std::stop_token& stop,
                                              std::vector<std::int64_t> allowed_users);

struct PollerOptions {
  std::vector<std::int64_t> allowed_users;
  std::chrono::seconds poll_timeout{30};
};

class UpdatePoller {
 public:
  // on_update(update_id, message or nullopt, verdict): true when the update may be confirmed.
  using OnUpdate = std::function<bool(std::int64_t update_id, const std::optional<InboundMessage>& message,
                                      Verdict verdict)>;

  UpdatePoller(BotApi& api, PollerOptions options, OnUpdate on_update);
  ~UpdatePoller();
  UpdatePoller(const UpdatePoller&) = delete;
  UpdatePoller& operator=(const UpdatePoller&) = delete;

  void start();
  void stop();  // idempotent; also stops the BotApi's calls
  // The bot's @username (without '@') once getMe answered; empty before.
  std::string bot_username() const;
  // Whether the last getUpdates was answered ok (for /healthz).
  bool polling() const { return polling_.load(); }

 private:
  void run(const std::stop_token& stop);

  BotApi& api_;
  PollerOptions options_;
  OnUpdate on_update_;
  mutable std::mutex mu_;
  AdmitPolicy policy_;
  std::atomic<bool> polling_{false};
  ReceiverThread thread_{api_};  // last: joined before the members its thread uses go
};

}  // namespace sigil::channels::telegram
