// McpTeaching (app/mcp_servers.h) against a real MCP server over stdio (tests/support/mcp_test_server.py):
// nothing new to teach until the server announces a change of tools; then one registry that teaches the new
// list (the prompt names the new tool), and nothing again until the next change.
#include <gtest/gtest.h>

#include <string>

#include "app/mcp_servers.h"
#include "sigil/catalog/prompt_doc.h"

namespace sigil::app {
namespace {

bool teaches(const catalog::Registry& registry, std::string_view tool) {
  for (const catalog::McpToolDoc& t : registry.options().mcp_tools)
    if (t.name == tool) return true;
  return false;
}

TEST(McpTeaching, ANewToolIsTaughtOnceAfterTheServerAnnouncesIt) {
  McpServerConfig server;
  server.name = "t";
  server.command = {"python3", std::string(SIGIL_SOURCE_DIR) + "/tests/support/mcp_test_server.py"};
  server.timeout_seconds = 10;
  McpStartup started = start_mcp_servers({server});
  ASSERT_TRUE(started.errors.empty()) << started.errors.front();
  ASSERT_EQ(started.config.servers.size(), 1u);
  ASSERT_EQ(started.tool_versions.size(), 1u);

  catalog::RegistryOptions base;
  base.mcp_servers = started.names;
  base.mcp_tools = started.tools;
  const catalog::Registry at_start = catalog::Registry::builtin(base);
  EXPECT_TRUE(teaches(at_start, "echo"));
  EXPECT_FALSE(teaches(at_start, "late"));

  McpTeaching teaching(started, base);
  EXPECT_EQ(teaching.changed(), nullptr);  // nothing announced yet
  EXPECT_EQ(teaching.changed(), nullptr);

  // `grow` adds the tool `late` and sends notifications/tools/list_changed before it answers.
  auto grown = started.config.servers.front()->call_tool("grow", {});
  ASSERT_TRUE(grown) << grown.error().message;
  auto fresh = teaching.changed();
  ASSERT_NE(fresh, nullptr);
  EXPECT_TRUE(teaches(*fresh, "late"));
  EXPECT_TRUE(teaches(*fresh, "echo"));
  EXPECT_EQ(fresh->options().mcp_servers, base.mcp_servers);
  EXPECT_EQ(fresh->actions().size(), at_start.actions().size());  // the same actions: only what is taught
  catalog::PromptOptions prompt;
  EXPECT_NE(catalog::prompt_section(*fresh, prompt).find("<mcp_t_late>"), std::string::npos);
  EXPECT_EQ(catalog::prompt_section(at_start, prompt).find("<mcp_t_late>"), std::string::npos);

  EXPECT_EQ(teaching.changed(), nullptr);  // taught once
}

}  // namespace
}  // namespace sigil::app
