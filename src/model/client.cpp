#include "sigil/model/client.h"

namespace sigil::model {

std::string_view to_string(FinishReason reason) noexcept {
  switch (reason) {
    case FinishReason::stop:
      return "stop";
    case FinishReason::length:
      return "length";
    case FinishReason::tool_calls:
      return "tool_calls";
    case FinishReason::content_filter:
      return "content_filter";
    case FinishReason::error:
      return "error";
    case FinishReason::cancelled:
      return "cancelled";
  }
  return "unknown";
}

std::string_view last_user_message(const ChatRequest& request) noexcept {
  for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
    if (it->role == "user") return it->content;
  }
  return {};
}

}  // namespace sigil::model
