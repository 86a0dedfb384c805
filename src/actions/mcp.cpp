#include "sigil/actions/mcp.h"

#include <boost/json.hpp>
#include <utility>

#include "actions/json_fields.h"
#include "sigil/actions/mcp_schema.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

// The list of tools in an error message stops here: a server with hundreds would drown the line.
constexpr std::size_t kListedTools = 30;

bool same_loosely(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] == '-' ? '_' : a[i];
    const char y = b[i] == '-' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

std::string server_names(const McpConfig& config) {
  std::string out;
  for (const auto& c : config.servers) out += (out.empty() ? "" : ", ") + c->name();
  return out;
}

exec::HandlerResult run_mcp(const McpConfig& config, const exec::Directive& d, exec::ActionContext& ctx) {
  const std::string server = string_at(d.args, "server");
  const std::string tool = string_at(d.args, "tool");
  auto target = resolve_mcp_tool(config, server, tool);
  if (!target) return exec::HandlerResult::error("mcp: " + target.error());

  json::value arguments = json::object();
  if (const auto* a = d.args.if_contains("arguments"); a != nullptr && !a->is_null()) arguments = *a;
  const std::string name = server + "_" + target->tool.name;
  if (auto fits = check_mcp_arguments(target->tool.input_schema, arguments); !fits) {
    return exec::HandlerResult::error("mcp: " + name + " was not called: " + fits.error() +
                                      "; its input schema: " + json::serialize(target->tool.input_schema));
  }
  if (!arguments.is_object())
    return exec::HandlerResult::error("mcp: the arguments of " + name + " must be an object");

  auto result = target->client->call_tool(target->tool.name, arguments.get_object(), ctx.stop_token());
  if (!result) return exec::HandlerResult::error("mcp: " + name + ": " + result.error().message);
  // The server's questions and sigil's answers (elicitation) follow the tool's text: the model learns why
  // a tool went the way it did, and the turn report keeps them.
  std::string text = result->text.empty() ? "(no text)" : result->text;
  for (const std::string& note : result->notes) text += "\n(" + note + ")";
  if (result->is_error) return exec::HandlerResult::error("mcp: " + name + " failed: " + text);
  return exec::HandlerResult::ok(text, json::value(text));
}

}  // namespace

sigil::Result<McpTarget, std::string> resolve_mcp_tool(const McpConfig& config, std::string_view server,
                                                       std::string_view tool) {
  std::shared_ptr<McpClient> client;
  for (const auto& c : config.servers) {
    if (c->name() == server) client = c;
  }
  if (client == nullptr) {
    if (config.servers.empty()) return std::string("no MCP server is connected");
    return "no MCP server named \"" + std::string(server) + "\"; connected: " + server_names(config);
  }
  const std::vector<McpTool> tools = client->tools();
  const McpTool* loose = nullptr;
  int loose_count = 0;
  for (const McpTool& t : tools) {
    if (t.name == tool) return McpTarget{client, t};
    if (same_loosely(t.name, tool)) {
      loose = &t;
      ++loose_count;
    }
  }
  if (loose_count == 1) return McpTarget{client, *loose};
  std::string names;
  for (std::size_t i = 0; i < tools.size() && i < kListedTools; ++i)
    names += (i == 0 ? "" : ", ") + tools[i].name;
  if (tools.size() > kListedTools) names += ", …";
  return "the MCP server \"" + std::string(server) + "\" has no tool \"" + std::string(tool) +
         "\"; its tools: " + (names.empty() ? "none" : names);
}

void add_mcp_handlers(exec::HandlerTable& table, McpConfig config) {
  table.add("mcp", [config = std::move(config)](const exec::Directive& d, exec::ActionContext& ctx) {
    return run_mcp(config, d, ctx);
  });
}

}  // namespace sigil::actions
