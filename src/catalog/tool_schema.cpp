#include "sigil/catalog/tool_schema.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sigil/catalog/prompt_doc.h"
#include "sigil/parse/json_text.h"
#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::catalog {
namespace {

namespace json = boost::json;

// OpenAI limits function names to 64 bytes of [a-zA-Z0-9_-].
constexpr std::size_t kMaxToolName = 64;

bool is_tool_char(char c) { return text::ascii::is_alnum(c) || c == '_' || c == '-'; }

std::string sanitized(std::string_view name) {
  std::string out;
  for (char c : name) out += is_tool_char(c) ? c : '_';
  if (out.empty()) out = "_";
  if (out.size() > kMaxToolName) out.resize(kMaxToolName);
  return out;
}

bool is_tool(const Registry& registry, const ActionSpec& action) {
  if (action.name == registry.options().say_action) return false;  // say is text for the user, not an action
  for (const Spelling& s : action.spellings) {
    // Without a configured server an MCP call has nowhere to go (5.6).
    if (s.dialect == Dialect::Mcp) return !registry.options().mcp_servers.empty();
  }
  return true;
}

bool is_mcp(const ActionSpec& action) {
  return std::any_of(action.spellings.begin(), action.spellings.end(),
                     [](const Spelling& s) { return s.dialect == Dialect::Mcp; });
}

struct NamedTool {
  std::string tool_name;
  const ActionSpec* action = nullptr;
  const McpToolDoc* mcp_tool = nullptr;  // one MCP server's tool as a tool of its own
};

// FNV-1a, 32 bits, as 8 hex digits: a stable short tag for a name cut to the tool-name limit.
std::string short_hash(std::string_view text) {
  std::uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 7; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = kHex[h & 15];
  return out;
}

// `mcp_{server}_{tool}`, sanitized; past 64 bytes cut and tagged with a hash of the whole (server, tool),
// so two long names that share a beginning stay apart.
std::string mcp_tool_name(const McpToolDoc& tool) {
  std::string full = "mcp_" + tool.server + "_" + tool.name;
  std::string name = sanitized(full.substr(0, std::min(full.size(), std::size_t{256})));
  if (full.size() <= kMaxToolName) return name;
  name.resize(kMaxToolName - 9);
  return name + "_" + short_hash(tool.server + "\n" + tool.name);
}

// Tool names in registry order; a name already taken gets `_2`, `_3`... so the mapping back is one to one.
// The mcp action is one tool per listed server tool; the generic `mcp` tool only while none is listed
// (servers named but not connected, `sigil prompt --mcp-servers`).
std::vector<NamedTool> named_tools(const Registry& registry, const PromptOptions& options) {
  std::vector<NamedTool> out;
  auto taken = [&out](const std::string& name) {
    return std::any_of(out.begin(), out.end(), [&](const NamedTool& t) { return t.tool_name == name; });
  };
  auto add = [&](std::string base, const ActionSpec& action, const McpToolDoc* tool) {
    std::string name = base;
    for (int n = 2; taken(name); ++n) {
      const std::string suffix = "_" + std::to_string(n);
      std::string cut = base;
      if (cut.size() + suffix.size() > kMaxToolName) cut.resize(kMaxToolName - suffix.size());
      name = cut + suffix;
    }
    out.push_back({std::move(name), &action, tool});
  };
  for (const ActionSpec& action : registry.actions()) {
    if (!prompt_includes(options, action.name) || !is_tool(registry, action)) continue;
    const auto& tools = registry.options().mcp_tools;
    if (is_mcp(action) && !tools.empty()) {
      for (const McpToolDoc& tool : tools) add(mcp_tool_name(tool), action, &tool);
      continue;
    }
    add(sanitized(action.name), action, nullptr);
  }
  return out;
}

json::object type_schema(ParamType type) {
  switch (type) {
    case ParamType::String:
      return {{"type", "string"}};
    case ParamType::Integer:
      return {{"type", "integer"}};
    case ParamType::Number:
      return {{"type", "number"}};
    case ParamType::Boolean:
      return {{"type", "boolean"}};
    case ParamType::Enum:
      return {{"type", "string"}};
    case ParamType::Duration:
      return {{"type", "string"}, {"pattern", R"(^\d+(\.\d+)?[mhd]$)"}};
    case ParamType::Datetime:
      return {{"type", "string"},
              {"pattern", R"(^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?$)"}};
    case ParamType::Array:
      return {{"type", "array"}, {"items", {{"type", "string"}}}};
    case ParamType::Json:
      // Any JSON value. OpenAI refuses a property without a `type`, so the types are listed.
      return {{"type", json::array{"string", "number", "boolean", "object", "array", "null"}}};
  }
  return {{"type", "string"}};
}

json::object param_schema(const ParamSpec& p) {
  json::object schema = type_schema(p.type);
  if (p.type == ParamType::Enum) {
    json::array values;
    for (const EnumValue& v : p.enum_values) {
      if (std::find(values.begin(), values.end(), json::value(v.canonical)) == values.end()) {
        values.push_back(json::value(v.canonical));
      }
    }
    schema["enum"] = std::move(values);
  }
  if (p.type == ParamType::Array) {
    // Nested arrays are kept as written (validate.h): their elements may be anything.
    schema["items"] = type_schema(p.element == ParamType::Array ? ParamType::Json : p.element);
    if (p.non_empty) schema["minItems"] = 1;
  }
  std::string description = p.description;
  // Defaults go into the description, not `default`: the model reads it, and no provider refuses it.
  if (!p.default_value.is_null()) {
    description += (description.empty() ? "default " : "; default ") + parse::json_text(p.default_value);
  }
  if (!description.empty()) schema["description"] = description;
  return schema;
}

std::string rules_text(const ActionSpec& action) {
  std::string out;
  for (const ParamRule& rule : action.rules) {
    std::string names;
    for (std::size_t i = 0; i < rule.params.size(); ++i) names += (i == 0 ? "" : ", ") + rule.params[i];
    out += rule.kind == ParamRule::Kind::ExactlyOne ? " Give exactly one of: " + names + "."
                                                    : " Give all or none of: " + names + ".";
  }
  return out;
}

json::object mcp_parameters(const Registry& registry) {
  json::array servers;
  for (const std::string& s : registry.options().mcp_servers) servers.push_back(json::value(s));
  json::object properties;
  properties["server"] = {
      {"type", "string"}, {"enum", std::move(servers)}, {"description", "the MCP server"}};
  properties["tool"] = {{"type", "string"}, {"description", "the tool's name on that server"}};
  properties["arguments"] = {{"type", "object"}, {"description", "the tool's arguments"}};
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", json::array{"server", "tool"}},
          {"additionalProperties", false}};
}

// One server tool as a function: its description (capped) and its own input schema, which the server
// checks again (validate_mcp checks the parts it knows before the call).
json::object mcp_tool_function(const std::string& name, const McpToolDoc& tool) {
  constexpr std::size_t kMaxDescription = 1024;
  std::string description = "MCP tool " + tool.name + " of server " + tool.server;
  if (!tool.description.empty()) description += ": " + tool.description;
  if (description.size() > kMaxDescription) description.resize(text::safe_cut(description, kMaxDescription));
  json::object parameters = tool.input_schema;
  if (!parameters.contains("type")) parameters["type"] = "object";
  if (!parameters.contains("properties")) parameters["properties"] = json::object();
  return {{"name", name}, {"description", std::move(description)}, {"parameters", std::move(parameters)}};
}

}  // namespace

json::object parameters_schema(const Registry& registry, const ActionSpec& action) {
  for (const Spelling& s : action.spellings) {
    if (s.dialect == Dialect::Mcp) return mcp_parameters(registry);
  }
  json::object properties;
  json::array required;
  for (const ParamSpec& p : action.params) {
    properties[p.name] = param_schema(p);
    if (p.required) required.push_back(json::value(p.name));
  }
  json::object schema{{"type", "object"}, {"properties", std::move(properties)}};
  // An empty `required` is refused by draft-4 validators; leaving it out means the same.
  if (!required.empty()) schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

json::array tool_schemas(const Registry& registry, const PromptOptions& options) {
  json::array tools;
  for (const NamedTool& t : named_tools(registry, options)) {
    const ActionSpec& action = *t.action;
    if (t.mcp_tool != nullptr) {
      tools.push_back(
          json::object{{"type", "function"}, {"function", mcp_tool_function(t.tool_name, *t.mcp_tool)}});
      continue;
    }
    std::string description = action.summary + "." + rules_text(action);
    if (action.name == "mcp") {
      for (const McpToolDoc& tool : registry.options().mcp_tools)
        description += "\n- " + mcp_tool_summary(tool);
    }
    json::object function{{"name", t.tool_name},
                          {"description", std::move(description)},
                          {"parameters", parameters_schema(registry, action)}};
    tools.push_back(json::object{{"type", "function"}, {"function", std::move(function)}});
  }
  return tools;
}

std::optional<McpToolRef> mcp_tool_for_tool_name(const Registry& registry, const PromptOptions& options,
                                                 std::string_view tool_name) {
  for (const NamedTool& t : named_tools(registry, options)) {
    if (t.tool_name == tool_name && t.mcp_tool != nullptr)
      return McpToolRef{t.mcp_tool->server, t.mcp_tool->name};
  }
  return std::nullopt;
}

std::optional<std::string> action_for_tool_name(const Registry& registry, const PromptOptions& options,
                                                std::string_view tool_name) {
  for (const NamedTool& t : named_tools(registry, options)) {
    if (t.tool_name == tool_name) return t.action->name;
  }
  // The generic mcp tool stays callable once the servers' own tools replace it in the list: a model (or a
  // transcript) that learnt it still reaches the same path.
  for (const ActionSpec& action : registry.actions()) {
    if (is_mcp(action) && sanitized(action.name) == tool_name && prompt_includes(options, action.name) &&
        is_tool(registry, action))
      return action.name;
  }
  return std::nullopt;
}

}  // namespace sigil::catalog
