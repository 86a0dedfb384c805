// The gateway's HTTP server (architecture: server/): health, metrics, published pages, a streaming chat
// endpoint over Server-Sent Events, the web chat over a WebSocket, conversation history and settings, the
// OpenAI-compatible chat completions, media downloads and the embedded web page. The user-facing API is in
// docs/gateway.md (and docs/openai-compatible.md). This header is plain std: Beast lives only in three
// translation units of src/server/ (http_server.cpp, the listener; http_session.cpp; websocket_session.cpp).
//
// What it promises:
// - Asynchronous: `threads` io threads serve every connection; no thread per connection or per turn. The
//   agent's observer callbacks post their events to the connection's strand.
// - Binds 127.0.0.1 by default. start() refuses a host that is not a loopback address when api_token is
//   empty (HttpServerError that says so): a gateway reachable from other machines must ask for a token.
// - With an api_token, every endpoint except GET /healthz, GET /media/..., GET /pages/..., GET / and
//   GET /assets/... needs `Authorization: Bearer <token>` (401 otherwise, compared in constant time);
//   /v1/ws also takes it as `access_token=<token>` in the query (a browser cannot set headers on a
//   WebSocket).
// - Who may call, before any route runs (docs/security.md): a Host header that does not name the gateway
//   gets 421 (every route but /healthz); a browser Origin other than the gateway's own (or allowed_origins)
//   gets 403 on the WebSocket and every API route; POST .../messages, PUT .../settings and
//   POST /v1/chat/completions take Content-Type application/json only (415).
// - Endpoints:
//   GET  /healthz                          200 `ok`; with `health` set (the gateway's chat channels), a
//                                          JSON object {"status":"ok","channels":{...}} instead
//   POST <webhook path>                     each of `webhooks`: no bearer token, Host or Origin check (the
//                                          platform's secret header authenticates it, checked by the
//                                          hook); answers what the hook returns; other methods get 405
//   GET  /metrics                          Prometheus text: sigil_http_requests_total{path} (path is the
//                                          route template, never the raw URL), sigil_turns_total,
//                                          sigil_turns_active (the agent's running and waiting turns),
//                                          rate-limit, refused-connection, refused-host/origin counters and
//                                          open (WebSocket) connection gauges
//   GET  /v1/ws?conversation=c&user=u       the web chat WebSocket (protocol in docs/gateway.md); 426
//                                          without an upgrade
//   GET  /v1/conversations/{id}/messages?user=u&limit=n
//                                          {"messages":[{role,text,turn}],"more"}: the history as hello
//                                          shows it, the last n (1..500, default 50) stored messages within
//                                          8 MiB of text
//   GET  /v1/conversations/{id}/settings?user=u
//                                          {"say_mode": bool}
//   PUT  /v1/conversations/{id}/settings?user=u
//                                          body {"say_mode": bool}: stores it, sends a "settings" frame to
//                                          the conversation's WebSockets, answers the new settings
//   POST /v1/conversations/{id}/messages   body {"text": "...", "user": "..." (default "web")}; answers
//                                          text/event-stream: `text` events ({"text": piece}) as the clean
//                                          text streams, `delivery` events (the delivery without payload
//                                          bytes), `model_call` events ({"call": n}), `silence` events,
//                                          then one `end` event ({"turn_id", "status", "diagnostics"}),
//                                          after which the connection closes.
//   POST /v1/chat/completions              OpenAI-compatible, stream or not (docs/openai-compatible.md);
//                                          errors in OpenAI's shape; 409 while a request with the same
//                                          Idempotency-Key still runs
//   GET  /v1/models, /v1/models/{id}       OpenAI's model list with one model, model_id (the agent)
//   GET  /media/<sha256>/<name>            the bytes of a file or voice delivery (the hash is the capability)
//   GET  /, /assets/<file>                 the embedded web page (web/ at build time)
//   GET  /pages/{slug}                     the page's HTML, sandboxed by its Content-Security-Policy (an
//                                          opaque origin; scripts only if published with
//                                          csp_allows_scripts), X-Content-Type-Options: nosniff; 404 for
//                                          unknown slugs
//   Every GET but the WebSocket's also answers HEAD (headers only). Other paths get 404, other methods 405
//   with Allow. Bodies over max_body get 413; a body that is not
//   what the endpoint takes gets 400 with a JSON {"error": "..."}; a conversation or user id must be
//   1..128 of [A-Za-z0-9._-] (400 otherwise).
// - Limits: a token bucket per user (messages_per_minute, message_burst) and one per peer address
//   (address_rate_factor times that) for WebSocket messages, POST messages and completions (error frame /
//   429 with Retry-After); beyond max_connections open connections new ones get 503.
// - Every turn started here (WebSocket or POST) and every turn observed through conversation_observer()
//   is sent to all WebSockets watching its (user, conversation).
// - An SSE or completions client that disconnects during a stream cancels its turn; a WebSocket that
//   closes does not (the turn goes on, lands in the history, and other watchers still get it). stop() (and
//   the destructor) closes the listener and open connections, cancels the turns this server started and
//   waits until they ended, so no agent callback reaches a destroyed server.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/agent/agent.h"
#include "sigil/store/store.h"

namespace sigil::server {

// What a webhook's handler answers: the status (200: taken; 401/403: refused; 5xx: the platform should
// deliver it again) and a short text body.
struct WebhookAnswer {
  int status = 200;
  std::string body = "ok";
};

// A POST endpoint the server carries for another part of the gateway: a chat platform's webhook (Telegram's).
struct Webhook {
  std::string path;    // the exact path, e.g. "/telegram/webhook" (the query is ignored)
  std::string header;  // the request header whose value `handle` gets ("" when absent)
  // Called on an io thread with that header's value and the body; it must be quick (store, then hand the
  // work to another thread) and thread-safe.
  std::function<WebhookAnswer(std::string_view header_value, std::string_view body)> handle;
  // Optional: a GET to the path (a platform's subscription check, e.g. WhatsApp's hub.challenge) gets the
  // request's query string (without '?'; "" when none). Unset: a GET is answered 405, as before.
  std::function<WebhookAnswer(std::string_view query)> on_get = nullptr;
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  unsigned short port = 0;  // 0: an ephemeral port, see start()'s return value
  std::string api_token;    // empty: no auth (loopback hosts only)
  std::size_t max_body = std::size_t{1} << 20;
  unsigned threads = 1;
  // WebSocket frames of a streaming turn may go out on a tick: a connection with frames waiting is then
  // written at the next tick, together with every other such connection, instead of waking an io thread
  // for its own first frame (one wake-up per tick rather than one per token across all conversations; a
  // frame waits at most this long, half of it on average). 0 (the default): each connection is woken as
  // soon as its first frame waits. Measured 2026-11-27 with sigil_load (300 conversations, a loaded 2-vCPU
  // VM), a 1 ms tick saved no CPU per token there and added its latency, so it is off unless asked for.
  std::chrono::microseconds frame_tick{0};
  std::string model_label;          // the hello frame's "model" (ModelClient::describe())
  bool replay_model = false;        // the hello frame's "replay": the model is a replay script
  std::string model_id = "sigil";   // the one model GET /v1/models lists
  std::string media_dir;            // where delivered files are kept for /media/; empty: in memory (64 MiB)
  double messages_per_minute = 30;  // per user; 0: unlimited
  unsigned message_burst = 10;
  std::size_t max_connections = 4096;  // 0: unlimited
  // Who may call (docs/security.md, "Origins and host names"): the Host a request names must be the
  // gateway's (listen address, localhost, public_url's host, allowed_hosts; "*" = any), else 421; a browser's
  // Origin on anything but the public routes must be the gateway's own (or in allowed_origins), else 403.
  std::string public_url;                    // e.g. "https://chat.example.com"; "" = none
  std::vector<std::string> allowed_origins;  // e.g. "https://tools.example.com"
  std::vector<std::string> allowed_hosts;    // e.g. "sigil.lan"; "*" turns the Host check off
  // The WebSocket greeting carries at most this much history text (newest first; a longer message is
  // shortened and marked "truncated"); the rest is on request (GET .../messages).
  std::size_t greeting_history_bytes = 256 * 1024;
  std::size_t greeting_message_bytes = 16 * 1024;
  // Per remote address, on top of the per-user bucket (a client chooses its user id, not its address):
  // this many times the per-user rate and burst.
  double address_rate_factor = 4;
  // More Prometheus text for GET /metrics, after the server's own (the gateway's channels: sends, retries);
  // unset: none. Called on an io thread for each scrape; it must be quick and thread-safe.
  std::function<std::string()> extra_metrics;
  // The "channels" member of GET /healthz's JSON (an object's text, e.g. {"telegram":{...}}); unset: /healthz
  // answers plain `ok`. Called on an io thread; quick and thread-safe.
  std::function<std::string()> health;
  // Webhook endpoints (see Webhook); their paths must not be the server's own routes.
  std::vector<Webhook> webhooks;
};

// start() failed: bad host, refused non-loopback bind, or the port could not be bound.
class HttpServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HttpServer {
 public:
  // The agent and the store must outlive the server.
  HttpServer(agent::Agent& agent, store::Store& store, HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, starts the io threads and returns the bound port. Throws HttpServerError.
  unsigned short start();
  // Idempotent; see the header comment.
  void stop();

  // A turn observer that sends a turn's events to every WebSocket watching (user, conversation), for turns
  // the server does not start itself (scheduled tasks: pass it to Agent::fire_task). The turn is
  // announced ("turn" frame, scheduled: true) at its first event. Safe to use after stop() (it then sends
  // nothing) and to outlive the server.
  std::shared_ptr<agent::TurnObserver> conversation_observer(std::string user, std::string conversation);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sigil::server
