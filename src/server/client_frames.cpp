#include "server/client_frames.h"

#include <boost/json.hpp>
#include <utility>

namespace sigil::server {

namespace json = boost::json;

namespace {

ClientFrame invalid(std::string message, std::optional<std::string> client_id = std::nullopt) {
  ClientFrame frame;
  frame.client_id = std::move(client_id);
  frame.text = std::move(message);
  return frame;
}

}  // namespace

ClientFrame parse_client_frame(std::string_view text) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(text, ec);
  if (ec || !parsed.is_object()) return invalid("malformed frame: expected a JSON object with a \"type\"");
  const json::object& obj = parsed.as_object();
  const json::value* type = obj.if_contains("type");
  if (type == nullptr || !type->is_string()) return invalid("malformed frame: \"type\" must be a string");
  std::optional<std::string> client_id;
  if (const json::value* id = obj.if_contains("client_id"); id != nullptr && !id->is_null()) {
    if (!id->is_string()) return invalid("malformed frame: \"client_id\" must be a string");
    client_id = std::string(id->as_string());
  }
  ClientFrame frame;
  frame.client_id = client_id;
  if (type->as_string() == "message") {
    const json::value* body = obj.if_contains("text");
    if (body == nullptr || !body->is_string() || body->as_string().empty())
      return invalid("malformed frame: \"text\" must be a non-empty string", std::move(client_id));
    frame.type = ClientFrame::Type::Message;
    frame.text = std::string(body->as_string());
    return frame;
  }
  if (type->as_string() == "settings") {
    const json::value* say = obj.if_contains("say_mode");
    if (say == nullptr || !say->is_bool())
      return invalid("malformed frame: \"say_mode\" must be true or false", std::move(client_id));
    frame.type = ClientFrame::Type::Settings;
    frame.say_mode = say->as_bool();
    return frame;
  }
  if (type->as_string() == "cancel") {
    const json::value* turn = obj.if_contains("turn");
    if (turn == nullptr || !turn->is_string())
      return invalid("malformed frame: \"turn\" must be a string", std::move(client_id));
    frame.type = ClientFrame::Type::Cancel;
    frame.text = std::string(turn->as_string());
    return frame;
  }
  return invalid("unknown frame type \"" + std::string(type->as_string()) + "\"", std::move(client_id));
}

}  // namespace sigil::server
