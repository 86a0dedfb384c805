// The `mcp` action handler with a real server process (tests/support/mcp_test_server.py): server and tool
// resolution, the schema check before any call, and what the model gets back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "sigil/actions/mcp.h"
#include "sigil/actions/mcp_stdio.h"
#include "support/handler_context.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

class McpHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = (std::filesystem::temp_directory_path() / ("sigil-mcp-handler-" + std::to_string(::getpid())))
               .string();
    std::filesystem::remove(log_);
    McpStdioOptions stdio;
    stdio.program = "python3";
    stdio.args = {std::string(SIGIL_SOURCE_DIR) + "/tests/support/mcp_test_server.py"};
    stdio.env = {{"MCP_TEST_LOG", log_}};
    auto client = std::make_shared<McpClient>("test-srv", make_mcp_stdio_transport(stdio));
    ASSERT_TRUE(client->connect());
    config_.servers.push_back(client);
    add_mcp_handlers(table_, config_);
  }
  void TearDown() override { std::filesystem::remove(log_); }

  exec::HandlerResult run(const char* server, const char* tool, const char* arguments) {
    exec::Directive d;
    d.action = "mcp";
    d.args["server"] = server;
    d.args["tool"] = tool;
    d.args["arguments"] = json::parse(arguments);
    exec::ActionContext ctx = parts_.context();
    return table_.find("mcp")->run(d, ctx);
  }

  std::size_t calls_made() const {
    std::ifstream in(log_);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.find("\"tools/call\"") != std::string::npos;
    return n;
  }

  McpConfig config_;
  exec::HandlerTable table_;
  std::string log_;
  test::HandlerContext parts_;
};

TEST_F(McpHandlerTest, TheToolsTextComesBack) {
  auto r = run("test-srv", "echo", R"({"message": "hi"})");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(r.message, "echo: hi");
  EXPECT_EQ(calls_made(), 1u);
}

TEST_F(McpHandlerTest, ArgumentsThatBreakTheSchemaAreNotSent) {
  auto r = run("test-srv", "echo", R"({"message": 42})");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(
      r.message.rfind("mcp: test-srv_echo was not called: arguments.message must be string, not an integer; "
                      "its input schema: {",
                      0),
      0u)
      << r.message;
  auto missing = run("test-srv", "echo", R"({})");
  EXPECT_NE(missing.message.find("arguments.message is required"), std::string::npos) << missing.message;
  EXPECT_EQ(calls_made(), 0u);
}

TEST_F(McpHandlerTest, IsErrorIsAnErrorWithTheToolsText) {
  auto r = run("test-srv", "fail", "{}");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message, "mcp: test-srv_fail failed: it failed on purpose");
}

TEST_F(McpHandlerTest, UnknownServerOrToolNamesWhatExists) {
  auto server = run("nope", "echo", "{}");
  EXPECT_EQ(server.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(server.message, "mcp: no MCP server named \"nope\"; connected: test-srv");
  auto tool = run("test-srv", "ecko", "{}");
  EXPECT_EQ(tool.message,
            "mcp: the MCP server \"test-srv\" has no tool \"ecko\"; its tools: echo, crash, get-pid, slow, "
            "ping_me, fail, ask");
  EXPECT_EQ(calls_made(), 0u);
}

TEST_F(McpHandlerTest, ResolutionTakesDashAndUnderscoreAsTheSame) {
  auto exact = resolve_mcp_tool(config_, "test-srv", "get-pid");
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->tool.name, "get-pid");
  auto loose = resolve_mcp_tool(config_, "test-srv", "get_pid");
  ASSERT_TRUE(loose);
  EXPECT_EQ(loose->tool.name, "get-pid");
  auto ping = resolve_mcp_tool(config_, "test-srv", "ping-me");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->tool.name, "ping_me");
  EXPECT_FALSE(resolve_mcp_tool(config_, "test_srv", "echo"));  // server names are exact
  EXPECT_EQ(resolve_mcp_tool(McpConfig{}, "x", "y").error(), "no MCP server is connected");
}

TEST_F(McpHandlerTest, ACrashIsAClearErrorAndTheNextCallWorks) {
  auto crashed = run("test-srv", "crash", "{}");
  EXPECT_EQ(crashed.status, exec::HandlerResult::Status::Error);
  EXPECT_NE(crashed.message.find("mcp: test-srv_crash: the server exited during the call"), std::string::npos)
      << crashed.message;
  auto next = run("test-srv", "echo", R"({"message": "back"})");
  EXPECT_EQ(next.status, exec::HandlerResult::Status::Ok) << next.message;
  EXPECT_EQ(next.message, "echo: back");
}

}  // namespace
}  // namespace sigil::actions
