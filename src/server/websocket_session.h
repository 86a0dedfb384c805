// The web chat's WebSocket connection (GET /v1/ws, protocol in docs/gateway.md). Private to the server's
// Beast translation units: only http_session.cpp, which upgrades to it, includes this.
//
// What it promises:
// - One connection watches one (user, conversation): hello (a bounded page of history, the say mode) goes
//   out first, then every frame broadcast to the conversation, in order; frames from the hub are queued,
//   never written from the hub's thread, and text frames that pile up behind a slow reader are merged.
// - Incoming messages are read in pieces: one over max_body is skipped with an error frame, and the
//   connection stays. "message" frames are rate-limited like POSTs and start a turn that goes on if the
//   connection closes; "cancel" cancels only a turn of its own conversation.
// - It keeps the connection's slot (max_connections) and counts itself in ws_open while it lives; it is
//   tracked in the state's session list, so stop() closes it.
#pragma once

#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>

#include "server/connection_slot.h"
#include "server/conversation_routes.h"
#include "server/server_state.h"

namespace sigil::server {

// Takes the HTTP connection over and answers the upgrade request (`query` checked, the token too).
void run_websocket_session(ServerState& state, boost::beast::tcp_stream&& stream, ConnectionSlot slot,
                           WebSocketQuery query, std::string address,
                           boost::beast::http::request<boost::beast::http::string_body> upgrade);

}  // namespace sigil::server
