// The configured actions as OpenAI tool schemas, so a model may call them as native tool calls too
// (architecture: "an OpenAI tool schema so the same action can also be called as a native tool call").
//
// Promise: one {"type":"function","function":{name, description, parameters}} per taught action (the same
// PromptOptions filter as the prompt section), in registry order. `say` is never a tool (it is text, not an
// action), and `mcp` is one only when MCP servers are configured. `parameters` is a JSON Schema object:
// canonical parameter names (aliases are for written markup only), types from ParamType, `required`,
// `additionalProperties: false`; cross-parameter rules are spelled out in the description, not as
// oneOf/anyOf, which several OpenAI-compatible providers refuse at the top level. Tool names are the
// canonical names with every character outside [a-zA-Z0-9_-] replaced by `_`, cut to 64 bytes, and made
// unique with a `_2`, `_3`... suffix; action_for_tool_name() maps them back.
//
// MCP (issue 13, item 5): each listed tool of a connected server is a tool of its own, named
// `mcp_{server}_{tool}` (sanitized as above; a name past 64 bytes is cut and ends in `_` and 8 hex digits of
// a hash of the server and tool, so names stay apart), with the tool's description and its inputSchema as
// `parameters`; mcp_tool_for_tool_name() maps a name back to its (server, tool). The generic `mcp` tool
// ({server, tool, arguments}) is offered only while servers are configured but no tool is listed; a call of
// it is still accepted afterwards (action_for_tool_name).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "sigil/catalog/prompt_doc.h"
#include "sigil/catalog/registry.h"

namespace sigil::catalog {

// The tools array for the `tools` field of a chat completions request.
boost::json::array tool_schemas(const Registry& registry, const PromptOptions& options);

// The JSON Schema of one action's arguments (the `parameters` of its tool).
boost::json::object parameters_schema(const Registry& registry, const ActionSpec& action);

struct McpToolRef {
  std::string server, tool;
};

// The server tool a name of tool_schemas(registry, options) stands for; nullopt for any other name.
std::optional<McpToolRef> mcp_tool_for_tool_name(const Registry& registry, const PromptOptions& options,
                                                 std::string_view tool_name);

// The canonical action a tool name of tool_schemas(registry, options) stands for; nullopt for any other name
// (also for actions the options exclude).
std::optional<std::string> action_for_tool_name(const Registry& registry, const PromptOptions& options,
                                                std::string_view tool_name);

}  // namespace sigil::catalog
