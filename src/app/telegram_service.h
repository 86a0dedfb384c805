// The Telegram channel wired into the gateway (architecture: channels/ may not use store/ or agent/, so the
// inbound side's decisions that need them are made here, in app/).
//
// What it promises:
// - start(): first the turns of updates recorded before and never finished (the process stopped or died
//   during them) run again, with their recorded turn ids, so their directives keep their exactly-once keys;
//   then the receiver starts: the poller (mode "polling", which deletes a webhook set before) or the
//   webhook receiver (mode "webhook": setWebhook; the gateway's HTTP server passes the POSTs to
//   receive_webhook() on webhook_path()).
// - Webhook mode: an update is recorded before the POST is answered 200, and its turn starts on this
//   service's own dispatch thread, never on the server's io thread (a turn's first call, "typing", is a
//   network call). A kill after the 200 loses nothing: the record's turn runs at the next start.
// - An admitted update is recorded in the store (Store::record_inbound) before the poller may confirm it;
//   a new one starts a turn: user "tg-<from.id>", conversation "tg-<chat.id>" (in a forum topic
//   "tg-<chat.id>-topic-<message_thread_id>", whose sends all name the topic), turn id "tg-<update_id>", and
//   the message's message_id as its platform id (TurnInput::message_id);
//   one recorded before starts nothing. Updates not admitted (other users, groups that do not address the
//   bot, messages without text or a file) are logged with why, without their text, and start nothing.
// - A file the user sent is kept beneath files_root (telegram_inbox.h) before the turn starts, and the
//   model reads where it is (or why it was not kept) after the message's text.
// - A turn shows "typing" (sendChatAction) at once and every 4 s until something is shown, then its output
//   goes through a ChatOutbox to a TelegramChannel for the chat. At its end the update is marked done and
//   the turn is logged with what the outbox did differently (fallbacks, skips) and the sends in doubt.
// - send_message(): a text to a chat, for send-message / <sendTelegram> (allow-listed by the handler).
// - stop(): polling ends; turns under way keep their channel until they end (the gateway waits for them).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "app/channel_inbound.h"
#include "app/chat_service.h"
#include "app/config.h"
#include "app/telegram_albums.h"
#include "sigil/agent/agent.h"
#include "sigil/channels/telegram/bot_api.h"
#include "sigil/channels/telegram/update_poller.h"
#include "sigil/channels/telegram/webhook_receiver.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"
#include "sigil/store/store.h"

namespace sigil::app {

class TelegramService final : public ChatService {
 public:
  // `files_root`: where files users send are kept (telegram_inbox.h); empty: they are not downloaded.
  TelegramService(const TelegramConfig& config, agent::Agent& agent, store::Store& store,
                  std::filesystem::path files_root);
  ~TelegramService() override;
  TelegramService(const TelegramService&) = delete;
  TelegramService& operator=(const TelegramService&) = delete;

  std::string_view name() const override { return "telegram"; }
  void start() override;
  // Stops receiving (polling ends; webhook POSTs get 503 so Telegram delivers them again later).
  void stop_receiving() override;

  // Webhook mode: the path the gateway's server answers ("" in polling mode) and one POST to it.
  const std::string& webhook_path() const { return config_.webhook_path; }
  channels::telegram::WebhookReply receive_webhook(std::string_view secret_header, std::string_view body);

  // The channel's state for /healthz, a JSON object: {"mode", "state" ("connecting", "polling", "webhook",
  // "error"), "last_error", "running_turns", "pending_updates"} (pending: recorded, turn not ended).
  std::string health_json() const override;
  // Whether updates come in: getUpdates is polling, or the webhook is set.
  bool receiving() const;
  // Turns started here and not ended yet (the gateway cancels them when its grace period is over).
  std::set<std::string> running_turns() const override;

  // A scheduled task's turn arrives where the task was set: for a Telegram conversation ("tg-<chat id>", or a
  // forum topic's "tg-<chat id>-topic-<thread id>") an observer that delivers to that chat (and topic), as a
  // turn started by a message would (without a message to answer);
  // nullptr for any other conversation.
  std::shared_ptr<agent::TurnObserver> task_observer(const store::ScheduledTask& task,
                                                     const std::string& turn_id) override;

  // Sends `text` to the chat (a Telegram chat id); "" when Telegram took every part, else the error.
  std::string send_message(std::string_view chat, std::string_view text) override;

  // Prometheus lines (channel_metrics_header() goes before them once): sigil_channel_calls_total,
  // _retries_total, _failures_total and sigil_channel_last_error_info{channel="telegram",api="send"|"poll",
  // error="…"} (the error line never holds the token: BotApi's errors name only the host).
  std::string metrics_text() const override;

 private:
  bool on_update(std::int64_t update_id, const std::optional<channels::telegram::InboundMessage>& message,
                 channels::telegram::Verdict verdict);
  // One turn for a message, or for the items of an album together (the first one's update id names it).
  void run_turn(const TelegramAlbums::Items& items);
  void run_pending();
  void dispatch(const std::stop_token& stop);
  bool webhook_mode() const { return config_.mode == "webhook"; }

  TelegramConfig config_;
  agent::Agent& agent_;
  std::filesystem::path files_root_;
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  // Two: stopping the poller cancels its own calls, not the sends of turns still running.
  std::unique_ptr<channels::telegram::BotApi> send_api_;
  std::unique_ptr<channels::telegram::BotApi> poll_api_;
  std::unique_ptr<channels::telegram::UpdatePoller> poller_;      // polling mode
  std::unique_ptr<channels::telegram::WebhookReceiver> webhook_;  // webhook mode
  std::unique_ptr<ChannelInbound> inbound_;  // built once the bot's id is known (from the token)
  // Webhook mode: recorded updates whose turn is still to start, and the thread that starts them.
  std::mutex queue_mu_;
  std::condition_variable_any queue_cv_;
  std::deque<channels::telegram::InboundMessage> queue_;
  std::jthread dispatcher_;
  std::unique_ptr<TelegramAlbums> albums_;  // items of albums until the album is whole
};

}  // namespace sigil::app
