// The gateway's route table: which endpoint a request target names, and what each endpoint asks of a
// request before it runs (methods, bearer token, Origin, Content-Type). Pure: no sockets, no Beast, so the
// table is tested on its own (tests/server/route_test.cpp) and the HTTP session only dispatches.
//
// What it promises:
// - route_of() looks at the path only (the query is ignored) and never allocates more than the param.
// - Route::label is the route's template ("/v1/conversations/{id}/messages"), never the raw URL: metrics
//   label their series by it, so clients cannot blow up the series count.
// - Every GET route also answers HEAD (the same status and headers, no body), except the WebSocket.
// - Route::param is the raw (still percent-encoded) path part the template leaves open: a page slug, a
//   conversation id, a media "<sha256>/<name>" or an asset path; empty for fixed routes.
#pragma once

#include <string>
#include <string_view>

namespace sigil::server {

struct Route {
  enum class Kind : unsigned char {
    Health,         // GET  /healthz
    Metrics,        // GET  /metrics
    Page,           // GET  /pages/{slug}
    Conversations,  // GET  /v1/conversations (the user's list)
    Conversation,   // DELETE /v1/conversations/{id}
    Messages,       // GET, POST /v1/conversations/{id}/messages
    Settings,       // GET, PUT  /v1/conversations/{id}/settings
    Completions,    // POST /v1/chat/completions
    Models,         // GET  /v1/models and /v1/models/{id}
    WebSocket,      // GET  /v1/ws
    Media,          // GET  /media/{sha256}/{name}
    Index,          // GET  / and /index.html
    Asset,          // GET  /assets/{file}
    Unknown
  } kind = Kind::Unknown;
  std::string label;  // the metrics label: the template ("other" for unknown paths)
  std::string param;  // what the template leaves open, as it appears in the URL
};

Route route_of(std::string_view target);

// The methods a route answers, as an Allow header lists them ("GET, HEAD", "GET, HEAD, POST", ...); ""
// for Unknown. HEAD goes with every GET but the WebSocket's (an upgrade has no HEAD form).
std::string_view allowed_methods(Route::Kind kind);
// Whether `method` (as the request line spells it, case-sensitive) is one of allowed_methods(kind).
bool method_allowed(Route::Kind kind, std::string_view method);

// Routes that need no token: health, the embedded page (public, no data in it), media (the 256-bit hash is
// the capability), published pages (the unguessable slug is) and the WebSocket (which checks its own, from
// the query or the header).
bool public_route(Route::Kind kind);

// Routes any site may read (they carry nothing of a conversation's but what their URL is the capability
// for): a foreign Origin is no reason to refuse them.
bool cross_origin_readable(Route::Kind kind);

// Routes whose body is JSON: a browser sends text/plain cross-site without asking first, never JSON, so
// these take application/json only.
bool json_body_route(Route::Kind kind, std::string_view method);

}  // namespace sigil::server
