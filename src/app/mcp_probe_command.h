// `sigil mcp-probe URL`: sigil's MCP client on its own, for the official conformance suite's client
// scenarios (`conformance client --command "sigil mcp-probe"` appends the server's URL).
//
// What it does: connects over Streamable HTTP (initialize, notifications/initialized, every page of
// tools/list), then calls each listed tool once with arguments made from its input schema (each required
// property: a number 1, 2, 3... in order, an integer likewise, a string "sample", a boolean true, an empty
// array or object), printing one line per step, and a line per note (what a server asked by elicitation and
// how `--elicitation` answered it: decline, the default, cancel, or defaults). Exit status 0 when the
// handshake worked (a tool's error result is printed, not fatal), 1 when it did not, 2 for bad usage.
//
// A server that answers 401 gets sigil's OAuth flow (mcp_oauth.h): client credentials from the suite's
// MCP_CONFORMANCE_CONTEXT when given, else dynamic registration, or `client_metadata_url` as the client id
// where the authorization server accepts client id metadata documents.
#pragma once

#include <iosfwd>
#include <string>

namespace sigil::app {

int run_mcp_probe(const std::string& url, const std::string& elicitation,
                  const std::string& client_metadata_url, std::ostream& out, std::ostream& err);

}  // namespace sigil::app
