// The executor writes a turn's output to a deliver::Outbox (sigil/deliver/delivery.h); RecordingOutbox
// records it, for tests and the console.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sigil/exec/handler.h"

namespace sigil::exec {

using deliver::Outbox;

// Records the ordered ops; consecutive text() pieces merge into one Text op (deliver() of a Text delivery
// stays a separate op, and end_message() starts a new one). For tests and the console.
class RecordingOutbox final : public Outbox {
 public:
  void text(std::string_view text) override;
  void deliver(const Delivery& delivery) override;
  void end() override { ended_ = true; }
  void silence(bool late) override { silenced_ = late ? 2 : 1; }
  void end_message() override { merge_text_ = false; }  // the next text() is a new Text op

  const std::vector<Delivery>& ops() const { return ops_; }
  bool ended() const { return ended_; }
  // 0: never silenced; 1: silenced before any text; 2: silenced late.
  int silenced() const { return silenced_; }

 private:
  std::vector<Delivery> ops_;
  int silenced_ = 0;
  bool merge_text_ = false;  // the last op came from text()
  bool ended_ = false;
};

}  // namespace sigil::exec
