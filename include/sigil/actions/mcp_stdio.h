// The MCP stdio transport: the server is a child process that reads newline-delimited JSON-RPC on stdin
// and writes it on stdout.
//
// The child gets descriptors 0 and 1 (ours to talk through) and our stderr (its diagnostics land in our
// log stream); every other descriptor is closed before exec. Its environment is the allow-list of
// subprocess.h plus the configured `env`. It runs in a process group of its own: close() ends the group
// (stdin closed, SIGTERM, then SIGKILL after a grace period) and reaps the child.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sigil/actions/mcp_client.h"

namespace sigil::actions {

struct McpStdioOptions {
  std::string program;  // a path, or a name looked up in PATH
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // set in the child, over the allow-list
};

std::unique_ptr<McpTransport> make_mcp_stdio_transport(McpStdioOptions options);

}  // namespace sigil::actions
