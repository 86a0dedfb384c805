// One accepted HTTP connection. Private to the server's Beast translation units: only http_server.cpp (the
// listener) includes this.
//
// What it promises:
// - Requests one after another (keep-alive), each admitted (Host, Origin, Content-Type, token) and routed
//   by the route table before any handler runs; a request not complete within 30 s drops the connection.
// - Or one SSE stream (POST .../messages, a streamed completion) after which it closes; a client that hangs
//   up before the turn ended cancels the turn.
// - Or an upgrade to a WebSocket, which takes the socket (and the connection slot) over.
// - It is tracked in the state's session list, so stop() closes it.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include "server/connection_slot.h"
#include "server/server_state.h"

namespace sigil::server {

void run_http_session(ServerState& state, boost::asio::ip::tcp::socket socket, ConnectionSlot slot);

}  // namespace sigil::server
