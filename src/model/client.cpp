#include "sigil/model/client.h"

#include "sigil/text/ascii.h"
#include "sigil/text/enum_names.h"

namespace sigil::model {

namespace {
constexpr text::EnumNames<FinishReason::cancelled> kFinishNames{
    {"stop", "length", "tool_calls", "content_filter", "error", "cancelled"}, "unknown"};
}  // namespace

std::string_view to_string(FinishReason reason) noexcept { return kFinishNames.name(reason); }

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
