// The one thread each way of receiving Telegram's updates runs (UpdatePoller, WebhookReceiver).
//
// What it promises: start() runs `run` on a new thread; stop() first stops the BotApi's calls (so one under
// way, a long poll or a retried setWebhook, ends at once), then asks the thread to stop and joins it.
// stop() is idempotent, and the destructor calls it.
#pragma once

#include <functional>
#include <stop_token>
#include <thread>
#include <utility>

#include "sigil/channels/telegram/bot_api.h"

namespace sigil::channels::telegram {

class ReceiverThread {
 public:
  explicit ReceiverThread(BotApi& api) : api_(api) {}
  ~ReceiverThread() { stop(); }
  ReceiverThread(const ReceiverThread&) = delete;
  ReceiverThread& operator=(const ReceiverThread&) = delete;

  void start(std::function<void(const std::stop_token&)> run) { thread_ = std::jthread(std::move(run)); }

  void stop() {
    api_.stop();
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }

 private:
  BotApi& api_;
  std::jthread thread_;
};

}  // namespace sigil::channels::telegram
