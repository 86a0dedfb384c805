// One turn on a chat platform's chat, the same for every platform channel (Telegram, Discord): the outbox on
// the platform's deliver::Channel, and the typing indicator while nothing is shown yet.
//
// What it promises:
// - start_typing(): the first indicator goes out at once, from the caller's thread (so it is the turn's
//   first call), then a thread renews it every `typing_every` until something is shown or the turn ends.
// - At the end, on_end gets the summary, what the outbox did differently (fallbacks, skips) and the calls
//   whose outcome stayed unknown.
// - held_until_final(): the outbox options of a Discord or Slack turn. inbound_turn(): an inbound message's
//   turn, begun in its ChannelInbound and ending the message's record with it.
// - Chan is a channels::PlatformChannel (typing(), shown_anything(), in_doubt()), built before the
//   observer's outbox, which reads its capabilities.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/channel_inbound.h"
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

// Text held until final: Discord's and Slack's message rates (5 per 5 s, about one a second per channel)
// are too low to stream by edits. Another chat gets nothing more: send-message's handler sent the text
// itself (it must know whether the platform took it).
inline deliver::ChatOutboxOptions held_until_final(std::string reply_to = {}) {
  deliver::ChatOutboxOptions options;
  options.reply_to = std::move(reply_to);
  options.stream = deliver::StreamPolicy::Never;
  options.other_chat = [](const deliver::Delivery&) { return std::string(); };
  return options;
}

// The turn of the inbound message recorded under `key`: begun in `inbound` now; at its end the record is
// ended (ChannelInbound::end, which logs the turn in `chat`).
template <class Chan, class Api, class Target>
std::shared_ptr<ChannelTurn<Chan>> inbound_turn(ChannelInbound& inbound, Api& api, Target target,
                                                deliver::ChatOutboxOptions options,
                                                std::chrono::milliseconds typing_every, std::string key,
                                                std::string turn_id, std::string chat) {
  inbound.begin(turn_id);
  return std::make_shared<ChannelTurn<Chan>>(
      api, std::move(target), std::move(options), typing_every,
      [&inbound, key = std::move(key), turn_id = std::move(turn_id), chat = std::move(chat)](
          const agent::TurnSummary& summary, const deliver::DeliveryReport& report,
          const std::vector<std::string>& in_doubt) {
        inbound.end(key, turn_id, chat, summary, report, in_doubt);
      });
}

}  // namespace sigil::app
