#include "sigil/exec/outbox.h"

namespace sigil::exec {

void RecordingOutbox::text(std::string_view text) {
  if (text.empty()) return;
  if (merge_text_ && !ops_.empty()) {
    ops_.back().text.append(text);
  } else {
    Delivery d;
    d.op = Delivery::Op::Text;
    d.text = std::string(text);
    ops_.push_back(std::move(d));
  }
  merge_text_ = true;
}

void RecordingOutbox::deliver(const Delivery& delivery) {
  ops_.push_back(delivery);
  merge_text_ = false;
}

}  // namespace sigil::exec
