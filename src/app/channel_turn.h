// One turn on a chat platform's chat, the same for every platform channel (Telegram, Discord): the outbox on
// the platform's deliver::Channel, and the typing indicator while nothing is shown yet.
//
// What it promises:
// - start_typing(): the first indicator goes out at once, from the caller's thread (so it is the turn's
//   first call), then a thread renews it every `typing_every` until something is shown or the turn ends.
// - At the end, on_end gets the summary, what the outbox did differently (fallbacks, skips) and the calls
//   whose outcome stayed unknown.
// - Chan is a channels::PlatformChannel (typing(), shown_anything(), in_doubt()), built before the
//   observer's outbox, which reads its capabilities.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sigil/agent/channel_observer.h"

namespace sigil::app {

template <class Chan>
struct ChannelHolder {
  Chan channel;
};

template <class Chan>
class ChannelTurn final : private ChannelHolder<Chan>, public agent::ChannelObserver {
 public:
  using OnEnd = std::function<void(const agent::TurnSummary&, const deliver::DeliveryReport&,
                                   const std::vector<std::string>& in_doubt)>;

  // The channel is built here, in place, as Chan(api, target): channels are neither copied nor moved.
  template <class Api, class Target>
  ChannelTurn(Api& api, Target target, deliver::ChatOutboxOptions options,
              std::chrono::milliseconds typing_every, OnEnd on_end)
      : ChannelHolder<Chan>{Chan(api, std::move(target))},
        agent::ChannelObserver(this->channel, std::move(options)),
        typing_every_(typing_every),
        on_end_(std::move(on_end)) {}

  ~ChannelTurn() override { stop_typing(); }

  void start_typing() {
    (void)this->channel.typing();
    typing_ = std::jthread([this](const std::stop_token& stop) {
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      while (!cv.wait_for(lock, stop, typing_every_, [] { return false; })) {
        if (stop.stop_requested() || this->channel.shown_anything()) return;
        (void)this->channel.typing();
      }
    });
  }

 protected:
  void turn_ended(const agent::TurnSummary& summary, const deliver::DeliveryReport& report) override {
    stop_typing();
    if (on_end_) on_end_(summary, report, this->channel.in_doubt());
  }

 private:
  void stop_typing() {
    if (typing_.joinable()) {
      typing_.request_stop();
      if (typing_.get_id() != std::this_thread::get_id()) typing_.join();
    }
  }

  std::chrono::milliseconds typing_every_;
  OnEnd on_end_;
  std::jthread typing_;
};

}  // namespace sigil::app
