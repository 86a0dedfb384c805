#include "sigil/agent/channel_observer.h"

#include <utility>

namespace sigil::agent {

ChannelObserver::ChannelObserver(deliver::Channel& channel, deliver::ChatOutboxOptions options)
    : box_(channel, std::move(options)) {}

void ChannelObserver::on_text(std::string_view text) { box_.text(text); }

void ChannelObserver::on_delivery(const exec::Delivery& delivery) { box_.deliver(delivery); }

void ChannelObserver::on_model_call(int n) {
  // The previous call's messages are final: a late sentinel of this call must not take them back.
  if (n > 1) box_.end();
}

void ChannelObserver::on_silence(bool late) { box_.silence(late); }

void ChannelObserver::on_message_end() { box_.end_message(); }

void ChannelObserver::on_turn_end(const TurnSummary& summary) {
  box_.end();
  turn_ended(summary, box_.report());
}

}  // namespace sigil::agent
