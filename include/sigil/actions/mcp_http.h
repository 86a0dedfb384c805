// The MCP Streamable HTTP transport (2025-11-25): every JSON-RPC message is one POST to the endpoint with
// `Accept: application/json, text/event-stream`; the answer is a JSON body or an SSE stream of messages.
//
// What it promises:
// - The Mcp-Session-Id the server gives (on the initialize answer) is sent back on every later request,
//   with MCP-Protocol-Version (the version of the server's initialize answer); the configured headers
//   (e.g. Authorization) go on every request.
// - Once notifications/initialized was accepted, the standalone GET stream is opened for messages outside
//   any request; a server that refuses it (405 or another error status) is left alone. When it ends it is
//   reopened after the server's `retry:` wait (1 s by default), with Last-Event-ID when ids were given.
// - An answer's SSE stream that ends before the answer, after the server gave an event id, is resumed by a
//   GET with Last-Event-ID after the `retry:` wait; 5 reconnections in a row that bring no message (or a
//   stream without any id) fail the request with a JSON-RPC error saying so.
// - With `oauth`, a POST refused with 401 (or 403 error="insufficient_scope") is sent once more after the
//   OAuth client got a token (mcp_oauth.h; the flow runs on a thread of its own), carrying it as
//   `Authorization: Bearer`; the token goes on every later request. Without it, or when that fails, a 401
//   or 403 fails the request with the server's WWW-Authenticate challenge (or the OAuth error) and the hint
//   that a token goes in the headers.
// - A 404 while a session is open means the session is gone: the transport reports it closed, so the
//   client initialises a new one on the next call.
// - A request the server refuses (an HTTP error, or a broken connection) gets a JSON-RPC error answer
//   for its id, so the waiting call fails at once with the HTTP status instead of timing out.
// - close() ends the session (DELETE, best effort) and cancels the open requests; no event follows.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sigil/actions/mcp_client.h"
#include "sigil/net/http_client.h"

namespace sigil::actions {

class McpOAuth;

struct McpHttpOptions {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::shared_ptr<McpOAuth> oauth;  // null: no OAuth
};

std::unique_ptr<McpTransport> make_mcp_http_transport(McpHttpOptions options,
                                                      std::shared_ptr<net::HttpClient> http);

}  // namespace sigil::actions
