#include "server/conversation_routes.h"

#include <algorithm>
#include <boost/json.hpp>
#include <memory>
#include <utility>

#include "server/client_history.h"
#include "server/request_checks.h"
#include "server/valid_utf8.h"
#include "server/ws_frames.h"
#include "sigil/text/ascii.h"

namespace sigil::server {

namespace json = boost::json;

OrRefusal<std::string> query_user(const QueryParams& query) {
  auto it = query.find("user");
  std::string user = it == query.end() ? "web" : it->second;
  if (!valid_conversation_id(user)) return json_error(400, "user must be 1 to 128 of A-Z a-z 0-9 . _ -");
  return user;
}

OrRefusal<ConversationQuery> conversation_query(std::string_view conversation, std::string_view target) {
  auto query = query_params(target);
  if (!query) return json_error(400, "malformed query string");
  if (!valid_conversation_id(conversation))
    return json_error(400, "conversation id must be 1 to 128 of A-Z a-z 0-9 . _ -");
  auto user = query_user(*query);
  if (auto* refused = std::get_if<PlainResponse>(&user)) return std::move(*refused);
  return ConversationQuery{std::move(std::get<std::string>(user)), std::move(*query)};
}

PlainResponse history_response(store::Store& store, const std::string& conversation,
                               std::string_view target) {
  auto checked = conversation_query(conversation, target);
  if (auto* refused = std::get_if<PlainResponse>(&checked)) return std::move(*refused);
  const ConversationQuery& request = std::get<ConversationQuery>(checked);
  HistoryWindow window{50, kHistoryAnswerBytes, 0};
  if (auto it = request.query.find("limit"); it != request.query.end()) {
    const std::string& v = it->second;
    const bool digits = !v.empty() && v.size() <= 3 && std::all_of(v.begin(), v.end(), text::ascii::is_digit);
    const int n = digits ? std::stoi(v) : 0;
    if (n < 1 || n > 500) return json_error(400, "limit must be 1 to 500");
    window.limit = static_cast<std::size_t>(n);
  }
  auto history = client_history(store, request.user, conversation, window);
  if (!history.ok()) return json_error(500, "store: " + history.error());
  PlainResponse res =
      text_response(200,
                    valid_utf8(json::serialize(json::object{{"messages", std::move(history->messages)},
                                                            {"deliveries", std::move(history->deliveries)},
                                                            {"more", history->more}})),
                    "application/json");
  res.with("Cache-Control", "no-store");
  return res;
}

PlainResponse settings_response(agent::Agent& agent, ConversationHub& hub, const std::string& conversation,
                                std::string_view target, const std::string* body) {
  auto checked = conversation_query(conversation, target);
  if (auto* refused = std::get_if<PlainResponse>(&checked)) return std::move(*refused);
  const std::string& user = std::get<ConversationQuery>(checked).user;
  if (body != nullptr) {
    boost::system::error_code ec;
    const json::value parsed = json::parse(*body, ec);
    const json::value* say = !ec && parsed.is_object() ? parsed.as_object().if_contains("say_mode") : nullptr;
    if (say == nullptr || !say->is_bool() || parsed.as_object().size() != 1)
      return json_error(400, "expected a JSON object {\"say_mode\": true or false}");
    if (auto set = agent.set_say_mode(user, conversation, say->as_bool()); !set)
      return json_error(500, "store: " + set.error());
    hub.broadcast(user, conversation,
                  std::make_shared<const std::string>(settings_frame(say->as_bool(), std::nullopt)));
  }
  auto say_mode = agent.say_mode(user, conversation);
  if (!say_mode) return json_error(500, "store: " + say_mode.error());
  PlainResponse res =
      text_response(200, json::serialize(json::object{{"say_mode", *say_mode}}), "application/json");
  res.with("Cache-Control", "no-store");
  return res;
}

OrRefusal<MessagePost> message_post(std::string_view conversation, std::string_view body) {
  if (!valid_conversation_id(conversation))
    return json_error(400, "conversation id must be 1 to 128 of A-Z a-z 0-9 . _ -");
  boost::system::error_code ec;
  const json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object())
    return json_error(400, "body must be a JSON object like {\"text\":\"hello\",\"user\":\"web\"}");
  const json::object& obj = parsed.as_object();
  const json::value* text = obj.if_contains("text");
  if (!text || !text->is_string() || text->as_string().empty())
    return json_error(400, "\"text\" must be a non-empty string");
  MessagePost post{"web", std::string(text->as_string())};
  if (const json::value* u = obj.if_contains("user")) {
    if (!u->is_string() || u->as_string().empty())
      return json_error(400, "\"user\" must be a non-empty string when given");
    post.user = std::string(u->as_string());
  }
  return post;
}

OrRefusal<WebSocketQuery> websocket_query(std::string_view target) {
  auto query = query_params(target);
  if (!query) return json_error(400, "malformed query string");
  auto conv = query->find("conversation");
  if (conv == query->end() || !valid_conversation_id(conv->second))
    return json_error(400, "conversation must be given, 1 to 128 of A-Z a-z 0-9 . _ -");
  auto user = query_user(*query);
  if (auto* refused = std::get_if<PlainResponse>(&user)) return std::move(*refused);
  WebSocketQuery out{conv->second, std::move(std::get<std::string>(user)), std::nullopt};
  if (auto token = query->find("access_token"); token != query->end()) out.access_token = token->second;
  return out;
}

}  // namespace sigil::server
