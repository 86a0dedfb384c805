// The gateway's HTTP server (architecture: server/), first slice: health, metrics, published pages and a
// streaming chat endpoint over Server-Sent Events. Beast lives only in src/server/http_server.cpp, so this
// header is plain std.
//
// What it promises:
// - Asynchronous: `threads` io threads serve every connection; no thread per connection or per turn. The
//   agent's observer callbacks post their events to the connection's strand.
// - Binds 127.0.0.1 by default. start() refuses a host that is not a loopback address when api_token is
//   empty (HttpServerError that says so): a gateway reachable from other machines must ask for a token.
// - With an api_token, every endpoint except GET /healthz needs `Authorization: Bearer <token>` (401
//   otherwise, compared in constant time).
// - Endpoints:
//   GET  /healthz                          200 `ok`
//   GET  /metrics                          Prometheus text: sigil_http_requests_total{path} (path is the
//                                          route template, never the raw URL), sigil_turns_total,
//                                          sigil_turns_active (the agent's running and waiting turns)
//   GET  /pages/{slug}                     the page's HTML with a Content-Security-Policy that forbids
//                                          scripts unless the page was published with csp_allows_scripts,
//                                          and X-Content-Type-Options: nosniff; 404 for unknown slugs
//   POST /v1/conversations/{id}/messages   body {"text": "...", "user": "..." (default "web")}; answers
//                                          text/event-stream: `text` events ({"text": piece}) as the clean
//                                          text streams, `delivery` events (the delivery without payload
//                                          bytes), `model_call` events ({"call": n}), then one `end` event
//                                          ({"turn_id", "status", "diagnostics"}), after which the
//                                          connection closes.
//   Bodies over max_body get 413; a body that is not a JSON object with a string "text" gets 400 with a
//   JSON {"error": "..."}; a conversation id must be 1..128 of [A-Za-z0-9._-] (400 otherwise).
// - A client that disconnects during a stream cancels its turn. stop() (and the destructor) closes the
//   listener and open connections, cancels the turns this server started and waits until they ended, so
//   no agent callback reaches a destroyed server.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include "sigil/agent/agent.h"
#include "sigil/store/store.h"

namespace sigil::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  unsigned short port = 0;  // 0: an ephemeral port, see start()'s return value
  std::string api_token;    // empty: no auth (loopback hosts only)
  std::size_t max_body = std::size_t{1} << 20;
  unsigned threads = 1;
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

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sigil::server
