// Where a turn's user-visible output goes, in reply order (spec 12.1). The executor calls it from one
// thread at a time (under its own lock), in order; an implementation should not block for long.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sigil/exec/handler.h"

namespace sigil::exec {

class Outbox {
 public:
  virtual ~Outbox() = default;
  virtual void text(std::string_view text) = 0;        // clean reply text, a piece at a time
  virtual void deliver(const Delivery& delivery) = 0;  // a file, voice note, reaction, or a separate text
  virtual void end() = 0;                              // the turn's output is complete
  // The reply is silent (spec 7.4): no more of its text comes. `late`: some text already went to text();
  // a channel that can delete removes what it showed of this reply, one that cannot should not have shown
  // it yet (12.7: it sends a reply's text only when the reply ends). Deliveries may still follow.
  virtual void silence(bool late) { (void)late; }
  // The text so far is one whole message; the next text starts a new one (say mode: each say block is its
  // own message, spec 6.1). Default: ignored (the text simply continues).
  virtual void end_message() {}
};

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
