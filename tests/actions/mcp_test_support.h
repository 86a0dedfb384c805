// Shared by the MCP client tests over HTTP (mcp_http_test, mcp_http_resume_test).
#pragma once

#include <chrono>
#include <thread>

#include "sigil/actions/mcp_client.h"
#include "sigil/actions/result.h"

namespace sigil::actions::testing {

// Connects, retrying every 100 ms while the server is still starting (it listens a moment after it is
// spawned), for 15 s at the most.
inline Result<void> connect_when_up(McpClient& client) {
  Result<void> r = make_error(ErrorCode::io, "not tried");
  for (int i = 0; i < 150; ++i) {
    r = client.connect();
    if (r) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return r;
}

}  // namespace sigil::actions::testing
