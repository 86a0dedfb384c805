// A turn observer for tests that only wait for a turn's end and read its summary.
#pragma once

#include <future>
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

}  // namespace sigil::agent::testing
