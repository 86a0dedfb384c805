// How sigil answers an MCP server's `elicitation/create` request (revision 2025-11-25, form mode).
//
// A server may ask the user for input in the middle of a tool call. Inside a turn nobody is there to fill
// in a form: the model called the tool, and the user waits for the reply. So each server has a policy
// (`[mcp.servers.NAME] elicitation`, docs/actions/mcp.md), applied without asking anyone:
// - decline (the default): `{"action": "decline"}`; the server learns the user said no.
// - cancel: `{"action": "cancel"}`; the server learns the request was dismissed.
// - defaults: accept with the `default` of every requested field that has one, when every required field
//   has one and each default fits its field (type, enum or const choices, lengths, bounds); otherwise
//   decline, saying which field could not be filled.
// What promises the answer keeps: an accepted `content` holds only fields of the requested schema, each
// checked against its field's schema. URL mode is not offered (the client declares only form mode), so a
// URL-mode request, or a form request without a `requestedSchema` object, is refused as invalid params.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "sigil/base/result.h"

namespace sigil::actions {

enum class McpElicitationPolicy { decline, cancel, defaults };

// "decline", "cancel" or "defaults"; anything else is nullopt.
std::optional<McpElicitationPolicy> parse_mcp_elicitation_policy(std::string_view text);
std::string_view to_string(McpElicitationPolicy policy);

struct McpElicitationAnswer {
  boost::json::object result;  // the ElicitResult: `action`, and `content` when accepted
  std::string note;            // one line for the tool's result: what was asked, what was answered, why
};

// The answer to the params of one elicitation/create request; an error is the message of a JSON-RPC
// "invalid params" error to send back instead.
sigil::Result<McpElicitationAnswer, std::string> answer_mcp_elicitation(const boost::json::object& params,
                                                                        McpElicitationPolicy policy);

}  // namespace sigil::actions
