// The conversation endpoints' request checks and answers, without sockets (tests/server/
// conversation_routes_test.cpp): GET /v1/conversations (the list), DELETE /v1/conversations/{id},
// GET /v1/conversations/{id}/messages, GET and PUT .../settings, the body of POST .../messages, and the
// query of GET /v1/ws. Each returns either what the session needs to go on
// or the whole 400/500 answer to send instead.
//
// What they promise:
// - Conversation and user ids are checked (valid_conversation_id) before anything reads the store; the
//   query's user is "web" when absent. A broken query escape is "malformed query string".
// - history_response(): ?limit=N (1..500, default 50); the answer stays within kHistoryAnswerBytes of text
//   (newest first) whatever is stored, is valid UTF-8 and is never cached.
// - conversations_response(): ?limit=N (1..500, default 100); the user's conversations with messages,
//   newest first: {"conversations": [{"id", "title", "preview", "messages", "updated_at_ms"}]}.
// - delete_response(): 409 while a turn of the conversation runs (stop it first), 404 when nothing is
//   stored for it, else 200 {"deleted": id}; every page watching it gets a "deleted" frame.
// - settings_response(): GET (body null) or PUT with "say_mode" (bool) and/or "title" (a string of at most
//   kMaxTitleBytes; blank clears it) and nothing else; a say mode change is sent to every page watching the
//   conversation (a "settings" frame) before the answer reads the settings back.
// - message_post(): the body is {"text": non-empty string, "user": non-empty string (default "web")}.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "server/conversation_hub.h"
#include "server/plain_response.h"
#include "server/query_string.h"
#include "server/turn_registry.h"
#include "sigil/agent/agent.h"
#include "sigil/store/store.h"

namespace sigil::server {

// GET .../messages answers at most this much message text (newest first), however much is stored.
inline constexpr std::size_t kHistoryAnswerBytes = std::size_t{8} << 20;
// A conversation's title, as PUT .../settings takes it.
inline constexpr std::size_t kMaxTitleBytes = 200;

// A value, or the answer that refuses the request.
template <class T>
using OrRefusal = std::variant<T, PlainResponse>;

// The query's "user" ("web" when absent), checked.
OrRefusal<std::string> query_user(const QueryParams& query);

struct ConversationQuery {
  std::string user;
  QueryParams query;
};
// The prelude of every /v1/conversations/{id}/... GET and PUT: the query, then the id, then the user.
OrRefusal<ConversationQuery> conversation_query(std::string_view conversation, std::string_view target);

PlainResponse history_response(store::Store& store, const std::string& conversation, std::string_view target);

PlainResponse conversations_response(store::Store& store, std::string_view target);

PlainResponse delete_response(store::Store& store, ConversationHub& hub, const TurnRegistry& turns,
                              const std::string& conversation, std::string_view target);

// body: null for GET, the request body for PUT.
PlainResponse settings_response(agent::Agent& agent, store::Store& store, ConversationHub& hub,
                                const std::string& conversation, std::string_view target,
                                const std::string* body);

struct MessagePost {
  std::string user;
  std::string text;
};
OrRefusal<MessagePost> message_post(std::string_view conversation, std::string_view body);

struct WebSocketQuery {
  std::string conversation;
  std::string user;
  std::optional<std::string> access_token;  // a browser cannot set headers on a WebSocket
};
// Malformed query, missing or bad conversation, bad user: 400 (the token and the upgrade are the session's).
OrRefusal<WebSocketQuery> websocket_query(std::string_view target);

}  // namespace sigil::server
