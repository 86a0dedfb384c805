#include "server/ws_frames.h"

#include <boost/json.hpp>

#include "sigil/net/url.h"
#include "sigil/text/ascii.h"

namespace sigil::server {
namespace {

namespace json = boost::json;

json::value client_id_value(const std::optional<std::string>& client_id) {
  if (!client_id) return nullptr;
  return json::string(*client_id);
}

}  // namespace

json::object hello_frame(std::string_view user, std::string_view conversation, std::string_view model,
                         bool replay, json::array history, bool history_more, bool say_mode,
                         json::array deliveries) {
  return json::object{{"type", "hello"},
                      {"user", user},
                      {"conversation", conversation},
                      {"model", model},
                      {"replay", replay},
                      {"say_mode", say_mode},
                      {"history", std::move(history)},
                      {"deliveries", std::move(deliveries)},
                      {"history_more", history_more}};
}

json::object settings_frame(bool say_mode, const std::optional<std::string>& client_id) {
  return json::object{
      {"type", "settings"}, {"say_mode", say_mode}, {"client_id", client_id_value(client_id)}};
}

json::object deleted_frame() { return json::object{{"type", "deleted"}}; }

json::object turn_frame(std::string_view turn, const std::optional<std::string>& client_id, bool scheduled,
                        std::string_view text) {
  return json::object{{"type", "turn"},
                      {"turn", turn},
                      {"client_id", client_id_value(client_id)},
                      {"scheduled", scheduled},
                      {"text", text}};
}

json::object model_call_frame(std::string_view turn, int call) {
  return json::object{{"type", "model_call"}, {"turn", turn}, {"call", call}};
}

json::object silence_frame(std::string_view turn, bool late) {
  return json::object{{"type", "silence"}, {"turn", turn}, {"late", late}};
}

json::object end_frame(const agent::TurnSummary& summary, std::string_view turn,
                       const deliver::DeliveryReport* delivery) {
  json::array diagnostics;
  for (const auto& d : summary.diagnostics) diagnostics.emplace_back(d);
  json::object o{{"type", "end"},
                 {"turn", turn},
                 {"status", agent::to_string(summary.status)},
                 {"diagnostics", std::move(diagnostics)},
                 {"say_mode", summary.say_mode}};
  if (delivery != nullptr) o["delivery"] = delivery->json();
  return o;
}

json::object error_frame(std::string_view message, const std::optional<std::string>& client_id) {
  return json::object{{"type", "error"}, {"message", message}, {"client_id", client_id_value(client_id)}};
}

std::string media_url(const MediaInfo& media) {
  return "/media/" + media.sha256 + "/" + net::percent_encode(media.name.empty() ? "file" : media.name);
}

}  // namespace sigil::server
