// One turn through the real pieces: Parser + built-in Registry + Executor + RecordingOutbox, on a store the
// test owns. For action tests that must show what a model's reply really does.
#pragma once

#include <string>
#include <string_view>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/exec/handler.h"
#include "sigil/exec/outbox.h"
#include "sigil/store/store.h"

namespace sigil::test {

struct TurnRun {
  exec::TurnReport report;
  exec::RecordingOutbox outbox;
  std::string model_message;

  // The text the user saw, all Text ops joined.
  std::string text() const;

  // For a reply of text, one directive, text: the directive's delivery, where it stood between the two texts,
  // once the one result is Ok and the outbox holds those three ops; nullptr after a failed expectation when
  // the turn is not that.
  const exec::Delivery* sole_delivery() const;
};

TurnRun run_turn(std::string_view reply, const exec::HandlerTable& handlers, store::Store& store,
                 exec::TurnIds ids = {"alice", "conv-1", "turn-1"}, exec::ExecOptions options = {},
                 bool say_mode = false);

}  // namespace sigil::test
