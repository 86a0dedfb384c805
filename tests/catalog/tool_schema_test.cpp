// OpenAI tool schemas (spec/tool_schema.h): one well-formed function tool per action, parameters as JSON
// Schema, and tool names that map back to their actions.
#include "sigil/catalog/tool_schema.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/catalog/registry.h"

namespace sigil::catalog {
namespace {

namespace json = boost::json;

bool valid_tool_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

const json::object* find_tool(const json::array& tools, std::string_view name) {
  for (const json::value& t : tools) {
    const json::object& f = t.at("function").as_object();
    if (f.at("name").as_string() == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> strings(const json::value& v) {
  std::vector<std::string> out;
  for (const json::value& s : v.as_array()) out.emplace_back(s.as_string());
  return out;
}

// Shape of a property schema: a `type` always (OpenAI refuses a property without one), arrays with `items`.
void expect_property_shape(const std::string& where, const json::object& property) {
  SCOPED_TRACE(where);
  ASSERT_TRUE(property.contains("type"));
  const json::value& type = property.at("type");
  ASSERT_TRUE(type.is_string() || type.is_array());
  if (type == json::value("array")) {
    ASSERT_TRUE(property.contains("items"));
    EXPECT_TRUE(property.at("items").as_object().contains("type"));
  }
  if (property.contains("enum")) {
    EXPECT_FALSE(property.at("enum").as_array().empty());
  }
  if (property.contains("description")) {
    EXPECT_FALSE(property.at("description").as_string().empty());
  }
}

void expect_tool_shape(const json::value& tool) {
  const json::object& t = tool.as_object();
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.at("type"), json::value("function"));
  const json::object& f = t.at("function").as_object();
  const std::string name(f.at("name").as_string());
  SCOPED_TRACE(name);
  EXPECT_TRUE(valid_tool_name(name));
  EXPECT_FALSE(f.at("description").as_string().empty());
  const json::object& p = f.at("parameters").as_object();
  EXPECT_EQ(p.at("type"), json::value("object"));
  EXPECT_EQ(p.at("additionalProperties"), json::value(false));
  const json::object& properties = p.at("properties").as_object();
  for (const auto& kv : properties)
    expect_property_shape(name + "." + std::string(kv.key()), kv.value().as_object());
  if (p.contains("required")) {
    const std::vector<std::string> required = strings(p.at("required"));
    EXPECT_FALSE(required.empty());
    for (const std::string& r : required) EXPECT_TRUE(properties.contains(r)) << r;
  }
  // Top-level combinators are refused by several providers: rules live in the description.
  EXPECT_FALSE(p.contains("oneOf") || p.contains("anyOf") || p.contains("allOf"));
}

TEST(ToolSchema, OneWellFormedToolPerActionButSay) {
  const Registry registry = Registry::builtin();
  const json::array tools = tool_schemas(registry, {});
  std::set<std::string> names;
  for (const json::value& tool : tools) {
    expect_tool_shape(tool);
    names.insert(std::string(tool.at("function").at("name").as_string()));
  }
  EXPECT_EQ(names.size(), tools.size());
  // Every built-in but say (not an action) and mcp (no server configured).
  EXPECT_EQ(tools.size(), registry.actions().size() - 2);
  EXPECT_EQ(names.count("say"), 0u);
  EXPECT_EQ(names.count("mcp"), 0u);
  EXPECT_EQ(names.count("send-file"), 1u);
  // The whole array is plain JSON a request can carry.
  EXPECT_EQ(json::parse(json::serialize(tools)), json::value(tools));
}

TEST(ToolSchema, RequiredListsAndTypes) {
  const json::array tools = tool_schemas(Registry::builtin(), {});
  auto params = [&](std::string_view name) -> const json::object& {
    const json::object* f = find_tool(tools, name);
    EXPECT_NE(f, nullptr) << name;
    return f->at("parameters").as_object();
  };
  EXPECT_EQ(strings(params("react").at("required")), (std::vector<std::string>{"emoji"}));
  EXPECT_EQ(strings(params("send-message").at("required")),
            (std::vector<std::string>{"channel", "chat", "text"}));
  EXPECT_EQ(strings(params("correct").at("required")), (std::vector<std::string>{"old", "new"}));
  EXPECT_EQ(strings(params("send-file").at("required")), (std::vector<std::string>{"path"}));
  // No parameters: an empty object, no `required`.
  EXPECT_TRUE(params("cleanupMemory").at("properties").as_object().empty());
  EXPECT_FALSE(params("cleanupMemory").contains("required"));
  EXPECT_FALSE(params("deleteScheduledTask").contains("required"));  // id or timestamp: a rule, not required

  const json::object& search_archive = params("searchArchive").at("properties").as_object();
  EXPECT_EQ(search_archive.at("topK").at("type"), json::value("integer"));
  EXPECT_EQ(search_archive.at("minScore").at("type"), json::value("number"));
  EXPECT_EQ(search_archive.at("topK").at("description"), json::value("how many results; default 10"));
  EXPECT_EQ(params("request-tier").at("properties").at("level").at("type"), json::value("integer"));
  EXPECT_EQ(params("send-file").at("properties").at("cleanup").at("type"), json::value("boolean"));
  // Canonical names only: aliases are for markup.
  EXPECT_FALSE(params("send-file").at("properties").as_object().contains("file"));

  const json::object& items = params("archiveItems").at("properties").at("items").as_object();
  EXPECT_EQ(items.at("type"), json::value("array"));
  EXPECT_EQ(items.at("items").at("type"), json::value("string"));
  EXPECT_EQ(items.at("minItems"), json::value(1));

  const json::object& schedule = params("scheduleTask").at("properties").as_object();
  EXPECT_EQ(schedule.at("delay").at("type"), json::value("string"));
  EXPECT_TRUE(schedule.at("delay").as_object().contains("pattern"));
  EXPECT_TRUE(schedule.at("time").as_object().contains("pattern"));
  EXPECT_EQ(params("setMemory").at("properties").at("value").at("type").as_array().size(), 6u);
}

TEST(ToolSchema, EnumValuesAreCanonicalAndUnique) {
  const json::array tools = tool_schemas(Registry::builtin(), {});
  const json::object& kind =
      find_tool(tools, "send-file")->at("parameters").at("properties").at("kind").as_object();
  EXPECT_EQ(kind.at("type"), json::value("string"));
  EXPECT_EQ(strings(kind.at("enum")),
            (std::vector<std::string>{"auto", "image", "document", "audio", "voice", "video"}));
}

TEST(ToolSchema, RulesAreInTheDescription) {
  const json::array tools = tool_schemas(Registry::builtin(), {});
  EXPECT_EQ(
      find_tool(tools, "scheduleTask")->at("description"),
      json::value("a durable task that starts a turn with the message when due. Give exactly one of: delay, "
                  "time."));
  EXPECT_EQ(find_tool(tools, "send-file")->at("description"),
            json::value("sends a file from an allowed folder. Give all or none of: channel, chat."));
  EXPECT_EQ(find_tool(tools, "react")->at("description"), json::value("adds a reaction to a message."));
}

TEST(ToolSchema, McpIsAToolOnlyWithServers) {
  RegistryOptions options;
  options.mcp_servers = {"github", "context7"};
  const Registry registry = Registry::builtin(options);
  const json::array tools = tool_schemas(registry, {});
  const json::object* mcp = find_tool(tools, "mcp");
  ASSERT_NE(mcp, nullptr);
  expect_tool_shape(json::object{{"type", "function"}, {"function", *mcp}});
  const json::object& p = mcp->at("parameters").as_object();
  EXPECT_EQ(strings(p.at("properties").at("server").at("enum")),
            (std::vector<std::string>{"github", "context7"}));
  EXPECT_EQ(strings(p.at("required")), (std::vector<std::string>{"server", "tool"}));
  EXPECT_EQ(p.at("properties").at("arguments").at("type"), json::value("object"));
  EXPECT_EQ(action_for_tool_name(registry, {}, "mcp"), "mcp");
}

TEST(ToolSchema, EachConnectedServerToolIsAToolOfItsOwn) {
  RegistryOptions options;
  options.mcp_servers = {"everything"};
  const json::object echo_schema =
      json::parse(R"({"type": "object", "properties": {"message": {"type": "string"}},
                                                  "required": ["message"]})")
          .as_object();
  options.mcp_tools = {{"everything", "echo", "Echoes back the input string", echo_schema},
                       {"everything", "get.sum", "Adds", json::object()},
                       {"everything", "get_sum", "Adds too", json::object()}};
  const Registry registry = Registry::builtin(options);
  const json::array tools = tool_schemas(registry, {});
  EXPECT_EQ(find_tool(tools, "mcp"), nullptr) << "the servers' own tools replace the generic one";
  const json::object* echo = find_tool(tools, "mcp_everything_echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_TRUE(valid_tool_name("mcp_everything_echo"));
  EXPECT_EQ(echo->at("description"),
            json::value("MCP tool echo of server everything: Echoes back the input string"));
  EXPECT_EQ(echo->at("parameters"), json::value(echo_schema));
  // '.' is not a tool-name character; the tool that would share the name gets a suffix.
  ASSERT_NE(find_tool(tools, "mcp_everything_get_sum"), nullptr);
  ASSERT_NE(find_tool(tools, "mcp_everything_get_sum_2"), nullptr);
  EXPECT_EQ(find_tool(tools, "mcp_everything_get_sum")->at("parameters").at("type"), json::value("object"));
  const auto ref = [&](std::string_view name) { return mcp_tool_for_tool_name(registry, {}, name); };
  ASSERT_TRUE(ref("mcp_everything_echo"));
  EXPECT_EQ(ref("mcp_everything_echo")->server, "everything");
  EXPECT_EQ(ref("mcp_everything_echo")->tool, "echo");
  EXPECT_EQ(ref("mcp_everything_get_sum")->tool, "get.sum");
  EXPECT_EQ(ref("mcp_everything_get_sum_2")->tool, "get_sum");
  EXPECT_FALSE(ref("mcp_everything_nope"));
  EXPECT_EQ(action_for_tool_name(registry, {}, "mcp_everything_echo"), "mcp");
  EXPECT_EQ(action_for_tool_name(registry, {}, "mcp"), "mcp") << "still accepted";
}

TEST(ToolSchema, LongMcpToolNamesAreCutAndStayApart) {
  RegistryOptions options;
  const std::string server = "a-server-with-a-rather-long-name";
  options.mcp_servers = {server};
  const std::string stem = "tool_whose_name_goes_on_and_on_and_on_";
  options.mcp_tools = {{server, stem + "first", "", json::object()},
                       {server, stem + "second", "", json::object()}};
  const Registry registry = Registry::builtin(options);
  const json::array tools = tool_schemas(registry, {});
  std::vector<std::string> names;
  for (const json::value& t : tools) {
    const std::string name(t.at("function").at("name").as_string());
    if (name.rfind("mcp_", 0) == 0) names.push_back(name);
  }
  ASSERT_EQ(names.size(), 2u);
  EXPECT_NE(names[0], names[1]);
  for (const std::string& name : names) {
    EXPECT_EQ(name.size(), 64u) << name;
    auto ref = mcp_tool_for_tool_name(registry, {}, name);
    ASSERT_TRUE(ref) << name;
    EXPECT_EQ(ref->server, server);
  }
  EXPECT_EQ(mcp_tool_for_tool_name(registry, {}, names[1])->tool, stem + "second");
}

TEST(ToolSchema, ToolNamesMapBackToTheirActions) {
  const Registry registry = Registry::builtin();
  PromptOptions options;
  options.denied = {"voice"};
  const json::array tools = tool_schemas(registry, options);
  for (const json::value& tool : tools) {
    const std::string name(tool.at("function").at("name").as_string());
    const std::optional<std::string> action = action_for_tool_name(registry, options, name);
    ASSERT_TRUE(action.has_value()) << name;
    EXPECT_EQ(*action, name);  // built-in names need no replacing
  }
  EXPECT_EQ(find_tool(tools, "voice"), nullptr);
  EXPECT_EQ(action_for_tool_name(registry, options, "voice"), std::nullopt);  // denied
  EXPECT_EQ(action_for_tool_name(registry, options, "say"), std::nullopt);
  EXPECT_EQ(action_for_tool_name(registry, options, "nope"), std::nullopt);
  EXPECT_EQ(action_for_tool_name(registry, options, "REACT"),
            std::nullopt);  // names are exact
  EXPECT_EQ(action_for_tool_name(registry, {}, "voice"), "voice");
}

TEST(ToolSchema, NamesOutsideTheToolAlphabetAreReplacedAndKeptUnique) {
  auto action = [](std::string name, std::string tag) {
    ActionSpec a;
    a.name = std::move(name);
    a.summary = "does " + a.name;
    Spelling s;
    s.name = std::move(tag);
    a.spellings = {s};
    return a;
  };
  const Registry registry({action("notes.add", "notesAdd"), action("notes_add", "notes_add"),
                           action("café:order", "cafeOrder"), action(std::string(80, 'x'), "long")});
  const json::array tools = tool_schemas(registry, {});
  ASSERT_EQ(tools.size(), 4u);
  std::vector<std::string> names;
  for (const json::value& tool : tools) {
    expect_tool_shape(tool);
    names.emplace_back(tool.at("function").at("name").as_string());
  }
  EXPECT_EQ(names[0], "notes_add");
  EXPECT_EQ(names[1], "notes_add_2");
  EXPECT_EQ(names[2], "caf___order");  // é is two bytes, each replaced
  EXPECT_EQ(names[3], std::string(64, 'x'));
  EXPECT_EQ(action_for_tool_name(registry, {}, "notes_add"), "notes.add");
  EXPECT_EQ(action_for_tool_name(registry, {}, "notes_add_2"), "notes_add");
  EXPECT_EQ(action_for_tool_name(registry, {}, "caf___order"), "café:order");
  EXPECT_EQ(action_for_tool_name(registry, {}, std::string(64, 'x')), std::string(80, 'x'));
}

}  // namespace
}  // namespace sigil::catalog
