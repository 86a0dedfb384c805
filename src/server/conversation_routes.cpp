#include "server/conversation_routes.h"

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
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

namespace {

// ?limit=N within 1..500, or `fallback` when absent.
OrRefusal<std::size_t> query_limit(const QueryParams& query, std::size_t fallback) {
  auto it = query.find("limit");
  if (it == query.end()) return fallback;
  const std::string& v = it->second;
  const bool digits = !v.empty() && v.size() <= 3 && std::all_of(v.begin(), v.end(), text::ascii::is_digit);
  const int n = digits ? std::stoi(v) : 0;
  if (n < 1 || n > 500) return json_error(400, "limit must be 1 to 500");
  return static_cast<std::size_t>(n);
}

PlainResponse json_answer(const json::value& body) {
  PlainResponse res = text_response(200, valid_utf8(json::serialize(body)), "application/json");
  res.with("Cache-Control", "no-store");
  return res;
}

std::int64_t epoch_ms(store::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// The title a PUT asks for, trimmed ("" clears it), or why it is refused.
OrRefusal<std::string> title_of(const json::value& v) {
  if (!v.is_string()) return json_error(400, "\"title\" must be a string");
  std::string title(text::ascii::trim(std::string_view(v.as_string())));
  if (title.size() > kMaxTitleBytes)
    return json_error(400, "\"title\" must be at most " + std::to_string(kMaxTitleBytes) + " bytes");
  if (std::any_of(title.begin(), title.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    return json_error(400, "\"title\" must be one line without control characters");
  return title;
}

}  // namespace

PlainResponse history_response(store::Store& store, const std::string& conversation,
                               std::string_view target) {
  auto checked = conversation_query(conversation, target);
  if (auto* refused = std::get_if<PlainResponse>(&checked)) return std::move(*refused);
  const ConversationQuery& request = std::get<ConversationQuery>(checked);
  auto limit = query_limit(request.query, 50);
  if (auto* refused = std::get_if<PlainResponse>(&limit)) return std::move(*refused);
  const HistoryWindow window{std::get<std::size_t>(limit), kHistoryAnswerBytes, 0};
  auto history = client_history(store, request.user, conversation, window);
  if (!history.ok()) return json_error(500, "store: " + history.error());
  return json_answer(json::object{{"messages", std::move(history->messages)},
                                  {"deliveries", std::move(history->deliveries)},
                                  {"more", history->more}});
}

PlainResponse conversations_response(store::Store& store, std::string_view target) {
  auto query = query_params(target);
  if (!query) return json_error(400, "malformed query string");
  auto user = query_user(*query);
  if (auto* refused = std::get_if<PlainResponse>(&user)) return std::move(*refused);
  auto limit = query_limit(*query, 100);
  if (auto* refused = std::get_if<PlainResponse>(&limit)) return std::move(*refused);
  auto list = store.list_conversations(std::get<std::string>(user), std::get<std::size_t>(limit));
  if (!list.ok()) return json_error(500, "store: " + list.error());
  json::array out;
  for (const store::ConversationSummary& c : *list) {
    out.push_back(json::object{{"id", c.conversation_id},
                               {"title", c.title},
                               {"preview", c.preview},
                               {"messages", c.messages},
                               {"updated_at_ms", epoch_ms(c.updated_at)}});
  }
  return json_answer(json::object{{"conversations", std::move(out)}});
}

PlainResponse delete_response(store::Store& store, ConversationHub& hub, const TurnRegistry& turns,
                              const std::string& conversation, std::string_view target) {
  auto checked = conversation_query(conversation, target);
  if (auto* refused = std::get_if<PlainResponse>(&checked)) return std::move(*refused);
  const std::string& user = std::get<ConversationQuery>(checked).user;
  // A running turn would write its reply into the conversation after it is gone.
  if (turns.busy(user, conversation))
    return json_error(409, "a turn of this conversation is running; stop it or wait for it to end");
  auto deleted = store.delete_conversation(store::Scope{user, conversation});
  if (!deleted.ok()) return json_error(500, "store: " + deleted.error());
  if (!*deleted) return json_error(404, "no such conversation");
  hub.broadcast(user, conversation, std::make_shared<const channels::web::WebFrame>(deleted_frame()));
  return json_answer(json::object{{"deleted", conversation}});
}

PlainResponse settings_response(agent::Agent& agent, store::Store& store, ConversationHub& hub,
                                const std::string& conversation, std::string_view target,
                                const std::string* body) {
  auto checked = conversation_query(conversation, target);
  if (auto* refused = std::get_if<PlainResponse>(&checked)) return std::move(*refused);
  const std::string& user = std::get<ConversationQuery>(checked).user;
  const store::Scope scope{user, conversation};
  if (body != nullptr) {
    boost::system::error_code ec;
    const json::value parsed = json::parse(*body, ec);
    const json::object* obj = !ec ? parsed.if_object() : nullptr;
    const bool known =
        obj != nullptr && !obj->empty() && std::all_of(obj->begin(), obj->end(), [](const auto& kv) {
          return kv.key() == "say_mode" || kv.key() == "title";
        });
    const json::value* say = known ? obj->if_contains("say_mode") : nullptr;
    if (!known || (say != nullptr && !say->is_bool()))
      return json_error(400, "expected a JSON object with \"say_mode\" (true or false) and/or \"title\"");
    std::optional<std::string> title;
    if (const json::value* t = obj->if_contains("title")) {
      auto checked_title = title_of(*t);
      if (auto* refused = std::get_if<PlainResponse>(&checked_title)) return std::move(*refused);
      title = std::move(std::get<std::string>(checked_title));
    }
    if (title) {
      if (auto set = store.set_setting(scope, "title", *title, store::Clock::now()); !set)
        return json_error(500, "store: " + set.error());
    }
    if (say != nullptr) {
      if (auto set = agent.set_say_mode(user, conversation, say->as_bool()); !set)
        return json_error(500, "store: " + set.error());
      hub.broadcast(
          user, conversation,
          std::make_shared<const channels::web::WebFrame>(settings_frame(say->as_bool(), std::nullopt)));
    }
  }
  auto say_mode = agent.say_mode(user, conversation);
  if (!say_mode) return json_error(500, "store: " + say_mode.error());
  auto title = store.get_setting(scope, "title");
  if (!title) return json_error(500, "store: " + title.error());
  return json_answer(json::object{{"say_mode", *say_mode}, {"title", title->value_or("")}});
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
