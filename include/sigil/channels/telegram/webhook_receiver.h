// The inbound side of the Telegram channel in webhook mode: Telegram POSTs each update to a public URL that
// the gateway's HTTP server answers (the route is wired in app/; channels do not know the server).
//
// What it promises:
// - start(): one thread asks getMe (the bot's id and @username, for admitting group messages), then
//   setWebhook(url, secret_token, allowed_updates ["message"], drop_pending_updates false), each made again
//   with a growing pause until Telegram answers ok. Updates Telegram held meanwhile are delivered after.
// - receive(secret, body) is one POST: without the X-Telegram-Bot-Api-Secret-Token header 401, with a wrong
//   one 403 (compared in constant time; logged as telegram-webhook-refused, never processed); before getMe
//   answered or after stop() 503 (Telegram delivers it again later); a body that is not an update 400.
//   Otherwise the update goes to on_update with its verdict, as the poller hands them on, and the answer is
//   200 only when on_update returned true (the consumer recorded it durably), else 500 so Telegram
//   delivers it again. So an update answered 200 is never lost, and one delivered twice reaches the
//   consumer twice (the consumer's record makes the second harmless).
// - Thread-safe: receive() may run on several threads at once (Telegram opens up to 40 connections).
// - stop(): the thread ends (its call cancelled); the webhook stays set, so Telegram keeps the updates that
//   come while sigil is down and delivers them to the next start.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/channels/telegram/bot_api.h"
#include "sigil/channels/telegram/receiver_thread.h"
#include "sigil/channels/telegram/update_poller.h"

namespace sigil::channels::telegram {

struct WebhookOptions {
  std::string url;     // the public URL given to setWebhook
  std::string secret;  // setWebhook's secret_token: 1-256 of A-Za-z0-9_-
  std::vector<std::int64_t> allowed_users;
};

struct WebhookReply {
  int status = 200;
  std::string body = "ok";
};

class WebhookReceiver {
 public:
  WebhookReceiver(BotApi& api, WebhookOptions options, UpdatePoller::OnUpdate on_update);
  ~WebhookReceiver();
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  void start();
  void stop();  // idempotent; also stops the BotApi's calls

  WebhookReply receive(std::string_view secret_header, std::string_view body);

  // Whether setWebhook succeeded (for /healthz).
  bool registered() const { return registered_.load(); }

 private:
  void run(const std::stop_token& stop);

  BotApi& api_;
  WebhookOptions options_;
  UpdatePoller::OnUpdate on_update_;
  mutable std::mutex mu_;
  AdmitPolicy policy_;
  bool ready_ = false;  // getMe answered
  std::atomic<bool> stopped_{false};
  std::atomic<bool> registered_{false};
  ReceiverThread thread_{api_};  // last: joined before the members its thread uses go
};

}  // namespace sigil::channels::telegram
