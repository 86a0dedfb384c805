// Starts the configured MCP servers ([mcp.servers.NAME]) for the gateway: each one is connected and its
// tools listed before the first turn, so the prompt can teach them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/config.h"
#include "sigil/actions/mcp.h"
#include "sigil/catalog/registry.h"

namespace sigil::app {

struct McpStartup {
  actions::McpConfig config;                 // the servers that connected
  std::vector<std::string> names;            // their names, for RegistryOptions::mcp_servers
  std::vector<catalog::McpToolDoc> tools;    // their tools, for RegistryOptions::mcp_tools
  std::vector<std::uint64_t> tool_versions;  // per server: McpClient::tools_version() before `tools` was read
  std::vector<std::string> errors;           // "NAME: why" for each server that did not (not taught)
};

// Never throws for a server that fails: it is left out, its error logged and returned.
McpStartup start_mcp_servers(const std::vector<McpServerConfig>& servers);

// Keeps what the prompt teaches of the servers' tools current (AgentConfig::taught_registry): after a server
// announces a change (notifications/tools/list_changed), the next model call is taught its new list, so
// a tool a server adds while it runs is offered and callable by name, and one it drops is no longer taught.
class McpTeaching {
 public:
  // `base`: the options of the registry made from `started` (its servers and their tools then).
  McpTeaching(const McpStartup& started, catalog::RegistryOptions base);
  // A registry teaching every server's tools as they are now, when some server's list was read again since
  // the last call (or since start); null otherwise. Thread-safe; a round trip only after a change.
  std::shared_ptr<const catalog::Registry> changed();

 private:
  std::mutex mu_;
  actions::McpConfig config_;
  catalog::RegistryOptions base_;
  std::vector<std::uint64_t> seen_;  // per server, as in McpStartup::tool_versions
};

}  // namespace sigil::app
