// A turn observer for tests that only wait for a turn's end and read its summary, and a turn of user u1 in
// conversation c1 run to its end with it.
#pragma once

#include <future>
#include <memory>
#include <string>
#include <string_view>

#include "sigil/agent/agent.h"

namespace sigil::agent::testing {

class EndObserver final : public TurnObserver {
 public:
  void on_text(std::string_view) override {}
  void on_delivery(const exec::Delivery&) override {}
  void on_turn_end(const TurnSummary& summary) override { done_.set_value(summary); }
  // Blocks until the turn ended; once per observer.
  TurnSummary wait() { return done_.get_future().get(); }

 private:
  std::promise<TurnSummary> done_;
};

// Starts the turn of user u1 in conversation c1 that says `text` (with this turn id and platform message id)
// and waits for its end; its summary.
inline TurnSummary run_turn_of_u1(Agent& agent, std::string text, std::string turn_id,
                                  std::string message_id = "") {
  TurnInput in;
  in.user = "u1";
  in.conversation = "c1";
  in.text = std::move(text);
  in.turn_id = std::move(turn_id);
  in.message_id = std::move(message_id);
  auto observer = std::make_shared<EndObserver>();
  agent.start_turn(std::move(in), observer);
  return observer->wait();
}

}  // namespace sigil::agent::testing
