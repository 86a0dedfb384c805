#include "server/route.h"

namespace sigil::server {

namespace {

// The id between "/v1/conversations/" and `suffix` when `path` is exactly that shape, else "".
std::string_view conversation_id_before(std::string_view path, std::string_view suffix) {
  constexpr std::string_view conv = "/v1/conversations/";
  if (!path.starts_with(conv) || !path.ends_with(suffix) || path.size() <= conv.size() + suffix.size())
    return {};
  const std::string_view id = path.substr(conv.size(), path.size() - conv.size() - suffix.size());
  return id.find('/') == std::string_view::npos ? id : std::string_view();
}

}  // namespace

Route route_of(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/healthz") return {Route::Kind::Health, "/healthz", {}};
  if (path == "/metrics") return {Route::Kind::Metrics, "/metrics", {}};
  if (path == "/v1/ws") return {Route::Kind::WebSocket, "/v1/ws", {}};
  if (path == "/v1/chat/completions") return {Route::Kind::Completions, "/v1/chat/completions", {}};
  if (path == "/" || path == "/index.html") return {Route::Kind::Index, "/", {}};
  if (path == "/v1/models") return {Route::Kind::Models, "/v1/models", {}};
  constexpr std::string_view models = "/v1/models/";
  if (path.starts_with(models) && path.size() > models.size() &&
      path.find('/', models.size()) == std::string_view::npos)
    return {Route::Kind::Models, "/v1/models/{id}", std::string(path.substr(models.size()))};
  constexpr std::string_view media = "/media/";
  if (path.starts_with(media))
    return {Route::Kind::Media, "/media/{sha256}", std::string(path.substr(media.size()))};
  constexpr std::string_view assets = "/assets/";
  if (path.starts_with(assets) && path.size() > assets.size()) {
    return {Route::Kind::Asset, "/assets/{file}", std::string(path.substr(assets.size()))};
  }
  constexpr std::string_view pages = "/pages/";
  if (path.starts_with(pages) && path.size() > pages.size() &&
      path.find('/', pages.size()) == std::string_view::npos) {
    return {Route::Kind::Page, "/pages/{slug}", std::string(path.substr(pages.size()))};
  }
  if (path == "/v1/conversations") return {Route::Kind::Conversations, "/v1/conversations", {}};
  if (const auto id = conversation_id_before(path, ""); !id.empty())
    return {Route::Kind::Conversation, "/v1/conversations/{id}", std::string(id)};
  if (const auto id = conversation_id_before(path, "/messages"); !id.empty())
    return {Route::Kind::Messages, "/v1/conversations/{id}/messages", std::string(id)};
  if (const auto id = conversation_id_before(path, "/settings"); !id.empty())
    return {Route::Kind::Settings, "/v1/conversations/{id}/settings", std::string(id)};
  return {Route::Kind::Unknown, "other", {}};
}

std::string_view allowed_methods(Route::Kind kind) {
  switch (kind) {
    case Route::Kind::Messages:
      return "GET, HEAD, POST";
    case Route::Kind::Settings:
      return "GET, HEAD, PUT";
    case Route::Kind::Conversation:
      return "DELETE";
    case Route::Kind::Completions:
      return "POST";
    case Route::Kind::WebSocket:
      return "GET";
    case Route::Kind::Health:
    case Route::Kind::Metrics:
    case Route::Kind::Page:
    case Route::Kind::Models:
    case Route::Kind::Conversations:
    case Route::Kind::Media:
    case Route::Kind::Index:
    case Route::Kind::Asset:
      return "GET, HEAD";
    case Route::Kind::Unknown:
      break;
  }
  return "";
}

bool method_allowed(Route::Kind kind, std::string_view method) {
  std::string_view allowed = allowed_methods(kind);
  while (!allowed.empty()) {
    const auto comma = allowed.find(", ");
    if (allowed.substr(0, comma) == method) return true;
    allowed = comma == std::string_view::npos ? std::string_view() : allowed.substr(comma + 2);
  }
  return false;
}

bool public_route(Route::Kind kind) {
  return kind == Route::Kind::Health || kind == Route::Kind::Media || kind == Route::Kind::Index ||
         kind == Route::Kind::Asset || kind == Route::Kind::WebSocket || kind == Route::Kind::Page;
}

bool cross_origin_readable(Route::Kind kind) {
  return kind == Route::Kind::Health || kind == Route::Kind::Media || kind == Route::Kind::Index ||
         kind == Route::Kind::Asset || kind == Route::Kind::Page;
}

bool json_body_route(Route::Kind kind, std::string_view method) {
  return (kind == Route::Kind::Messages && method == "POST") ||
         (kind == Route::Kind::Settings && method == "PUT") ||
         (kind == Route::Kind::Completions && method == "POST");
}

}  // namespace sigil::server
