#include "sigil/catalog/tool_schema.h"

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sigil/catalog/prompt_doc.h"
#include "sigil/parse/json_text.h"
#include "sigil/text/ascii.h"

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

struct NamedTool {
  std::string tool_name;
  const ActionSpec* action = nullptr;
};

// Tool names in registry order; a name already taken gets `_2`, `_3`... so the mapping back is one to one.
std::vector<NamedTool> named_tools(const Registry& registry, const PromptOptions& options) {
  std::vector<NamedTool> out;
  auto taken = [&out](const std::string& name) {
    return std::any_of(out.begin(), out.end(), [&](const NamedTool& t) { return t.tool_name == name; });
  };
  for (const ActionSpec& action : registry.actions()) {
    if (!prompt_includes(options, action.name) || !is_tool(registry, action)) continue;
    std::string name = sanitized(action.name);
    for (int n = 2; taken(name); ++n) {
      const std::string suffix = "_" + std::to_string(n);
      std::string base = sanitized(action.name);
      if (base.size() + suffix.size() > kMaxToolName) base.resize(kMaxToolName - suffix.size());
      name = base + suffix;
    }
    out.push_back({std::move(name), &action});
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

std::optional<std::string> action_for_tool_name(const Registry& registry, const PromptOptions& options,
                                                std::string_view tool_name) {
  for (const NamedTool& t : named_tools(registry, options)) {
    if (t.tool_name == tool_name) return t.action->name;
  }
  return std::nullopt;
}

}  // namespace sigil::catalog
