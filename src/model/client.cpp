#include "sigil/model/client.h"

#include "sigil/text/ascii.h"

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

bool refused_tools(const Outcome& outcome) {
  if (outcome.finish != FinishReason::error || outcome.http_status < 400) return false;
  // The server's own words only: our prefix names the host, which may well contain "tool".
  return text::ascii::to_lower(outcome.server_message).find("tool") != std::string::npos;
}

std::string_view last_user_message(const ChatRequest& request) noexcept {
  for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
    if (it->role == "user") return it->content;
  }
  return {};
}

}  // namespace sigil::model
