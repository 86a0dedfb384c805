// Starts the configured MCP servers ([mcp.servers.NAME]) for the gateway: each one is connected and its
// tools listed before the first turn, so the prompt can teach them.
#pragma once

#include <string>
#include <vector>

#include "app/config.h"
#include "sigil/actions/mcp.h"
#include "sigil/catalog/registry.h"

namespace sigil::app {

struct McpStartup {
  actions::McpConfig config;               // the servers that connected
  std::vector<std::string> names;          // their names, for RegistryOptions::mcp_servers
  std::vector<catalog::McpToolDoc> tools;  // their tools, for RegistryOptions::mcp_tools
  std::vector<std::string> errors;         // "NAME: why" for each server that did not (not taught)
};

// Never throws for a server that fails: it is left out, its error logged and returned.
McpStartup start_mcp_servers(const std::vector<McpServerConfig>& servers);

}  // namespace sigil::app
