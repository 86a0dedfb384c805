// The `mcp` action (spec 5.6, 13): `<mcp_SERVER_TOOL>{arguments}</mcp_SERVER_TOOL>` (or the `mcp` tool
// call) calls TOOL on the connected MCP server SERVER.
//
// The handler resolves the server and the tool, checks the arguments against the tool's inputSchema
// (mcp_schema.h) and only then calls it; the tool's text comes back to the model. An unknown server or
// tool, arguments that break the schema, a tool that reports isError, a crashed server or a cancelled
// turn are each an error result with one line the model can act on.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/actions/mcp_client.h"
#include "sigil/exec/handler.h"

namespace sigil::actions {

struct McpConfig {
  // The servers that connected at start; none: `mcp` says no server is connected.
  std::vector<std::shared_ptr<McpClient>> servers;
};

struct McpTarget {
  std::shared_ptr<McpClient> client;
  McpTool tool;
};

// The server of exactly that name, then its tool of exactly that name, else the one tool whose name
// matches when '-' and '_' are taken as the same (models often write get_sum for get-sum). Fails with the
// message for the model, naming what exists.
sigil::Result<McpTarget, std::string> resolve_mcp_tool(const McpConfig& config, std::string_view server,
                                                       std::string_view tool);

void add_mcp_handlers(exec::HandlerTable& table, McpConfig config);

}  // namespace sigil::actions
