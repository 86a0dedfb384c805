#include "sigil/deliver/delivery.h"

namespace sigil::deliver {

Payload::~Payload() = default;

bool read_payload(const Payload& payload, std::string& out, std::string& error) {
  out.clear();
  out.reserve(static_cast<std::size_t>(payload.size()));
  char buffer[64 * 1024];
  for (std::uint64_t offset = 0;;) {
    const std::int64_t n = payload.read_at(offset, std::span<char>(buffer, sizeof buffer));
    if (n < 0) {
      error = "cannot read the file's bytes";
      return false;
    }
    if (n == 0) return true;
    out.append(buffer, static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

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
