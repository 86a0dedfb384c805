#include "sigil/deliver/delivery.h"

namespace sigil::deliver {

Payload::~Payload() = default;

std::string_view to_string(Delivery::Op op) {
  switch (op) {
    case Delivery::Op::Text:
      return "text";
    case Delivery::Op::File:
      return "file";
    case Delivery::Op::Voice:
      return "voice";
    case Delivery::Op::Reaction:
      return "reaction";
    case Delivery::Op::Message:
      return "message";
  }
  return "unknown";
}

}  // namespace sigil::deliver
