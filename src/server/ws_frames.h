// The web chat protocol's server -> client frames the gateway makes (see docs/gateway.md): one function per
// frame type, so the WebSocket session, the turn broadcaster and the tests agree on every field. Each is a
// channels::web::WebFrame (its JSON object), serialised only by the socket that writes it; the frames of a
// turn's output (text pieces, deliveries, deletes) are the web channel's.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "server/media_store.h"
#include "sigil/agent/agent.h"
#include "sigil/deliver/report.h"
#include "sigil/exec/handler.h"

namespace sigil::server {

// history: a bounded page (client_history); history_more: older messages or parts were left out.
boost::json::object hello_frame(std::string_view user, std::string_view conversation, std::string_view model,
                                bool replay, boost::json::array history, bool history_more,
                                bool say_mode = false, boost::json::array deliveries = {});
// The conversation's settings changed (say mode, spec 6.1); client_id: of the frame that asked, if any.
boost::json::object settings_frame(bool say_mode, const std::optional<std::string>& client_id);
// The conversation was deleted (DELETE /v1/conversations/{id}): a page showing it starts another.
boost::json::object deleted_frame();
// client_id: nullopt is JSON null.
boost::json::object turn_frame(std::string_view turn, const std::optional<std::string>& client_id,
                               bool scheduled, std::string_view text);
boost::json::object model_call_frame(std::string_view turn, int call);
// The current model call's reply is silent (spec 7.4); `late`: remove its text already shown (12.7).
boost::json::object silence_frame(std::string_view turn, bool late);
// delivery: what the web channel's outbox did differently from what was asked (fallbacks, skips), when
// the turn was shown through it.
boost::json::object end_frame(const agent::TurnSummary& summary, std::string_view turn,
                              const deliver::DeliveryReport* delivery = nullptr);
boost::json::object error_frame(std::string_view message, const std::optional<std::string>& client_id);

// /media/<sha256>/<percent-encoded name>
std::string media_url(const MediaInfo& media);

}  // namespace sigil::server
