// A turn shown on a chat channel: the agent's TurnObserver feeding a deliver::ChatOutbox, so every
// channel (the web chat, the console, later the chat services) gets the same ordering, streaming,
// splitting, say-mode messages and capability fallbacks (architecture: turn -> exec -> outbox -> channel).
//
// What it promises:
// - Text, deliveries, silence and say-block ends go to the outbox in the order the agent gives them.
// - Each model call's output is its own set of messages: a later call starts new messages, and a late
//   sentinel takes back only the current call's text (spec 12.7).
// - At the turn's end the outbox finishes its last message, then turn_ended() gets the summary and what
//   the outbox did differently from what was asked (fallbacks, skips, splits): the turn report's channel
//   part. turn_ended() is called exactly once.
// - The channel must outlive the observer; calls come one at a time (TurnObserver's contract).
#pragma once

#include "sigil/agent/agent.h"
#include "sigil/deliver/channel.h"
#include "sigil/deliver/chat_outbox.h"
#include "sigil/deliver/report.h"

namespace sigil::agent {

class ChannelObserver : public TurnObserver {
 public:
  ChannelObserver(deliver::Channel& channel, deliver::ChatOutboxOptions options);

  void on_text(std::string_view text) override;
  void on_delivery(const exec::Delivery& delivery) override;
  void on_model_call(int n) override;
  void on_silence(bool late) override;
  void on_message_end() override;
  void on_turn_end(const TurnSummary& summary) final;

  const deliver::ChatOutbox& outbox() const { return box_; }

 protected:
  virtual void turn_ended(const TurnSummary& summary, const deliver::DeliveryReport& report) = 0;

 private:
  deliver::ChatOutbox box_;
};

}  // namespace sigil::agent
