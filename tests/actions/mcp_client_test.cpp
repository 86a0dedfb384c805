// The MCP client against real server processes: tests/support/mcp_test_server.py (a tiny stdio server
// that pages its tool list, crashes, stalls and pings on demand) over the real stdio transport.
#include "sigil/actions/mcp_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "sigil/actions/mcp_stdio.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string server_script() { return std::string(SIGIL_SOURCE_DIR) + "/tests/support/mcp_test_server.py"; }

// The messages the test server received (MCP_TEST_LOG), parsed.
std::vector<json::object> received(const std::string& log) {
  std::vector<json::object> out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(json::parse(line).as_object());
  }
  return out;
}

std::size_t count_method(const std::vector<json::object>& messages, std::string_view method) {
  std::size_t n = 0;
  for (const auto& m : messages) {
    if (const auto* v = m.if_contains("method"); v != nullptr && v->is_string() && v->get_string() == method)
      ++n;
  }
  return n;
}

class McpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = (std::filesystem::temp_directory_path() /
            ("sigil-mcp-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove(log_);
  }
  void TearDown() override { std::filesystem::remove(log_); }

  std::unique_ptr<McpClient> client(std::chrono::milliseconds timeout = 10s) {
    McpStdioOptions stdio;
    stdio.program = "python3";
    stdio.args = {server_script()};
    stdio.env = {{"MCP_TEST_LOG", log_}};
    McpClientOptions options;
    options.timeout = timeout;
    return std::make_unique<McpClient>("t", make_mcp_stdio_transport(stdio), options);
  }

  std::string log_;
};

TEST_F(McpClientTest, HandshakeThenEveryPageOfTools) {
  auto c = client();
  ASSERT_TRUE(c->connect()) << "connect";
  std::vector<std::string> names;
  for (const McpTool& t : c->tools()) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"echo", "crash", "get-pid", "slow", "ping_me", "fail", "ask"}));
  ASSERT_TRUE(c->find_tool("echo").has_value());
  EXPECT_EQ(c->find_tool("echo")->input_schema.at("required").as_array().size(), 1u);

  const auto messages = received(log_);
  ASSERT_GE(messages.size(), 4u);
  const json::object& init = messages[0];
  EXPECT_EQ(init.at("jsonrpc"), "2.0");
  EXPECT_EQ(init.at("method"), "initialize");
  EXPECT_EQ(init.at("params").at("protocolVersion"), "2025-11-25");
  EXPECT_TRUE(init.at("params").at("clientInfo").as_object().contains("name"));
  // Form-mode elicitation is offered (answered by policy), URL mode is not.
  EXPECT_EQ(init.at("params").at("capabilities"), json::parse(R"({"elicitation": {"form": {}}})"));
  EXPECT_EQ(messages[1].at("method"), "notifications/initialized");
  EXPECT_FALSE(messages[1].contains("id"));  // a notification has no id
  EXPECT_EQ(messages[3].at("params").at("cursor"), "page-2");
}

TEST_F(McpClientTest, CallsAToolAndAnswersTheServersPing) {
  auto c = client();
  ASSERT_TRUE(c->connect());
  auto r = c->call_tool("echo", {{"message", "hi"}, {"times", 2}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "echo: hihi");
  EXPECT_FALSE(r->is_error);

  auto p = c->call_tool("ping_me", {});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->text, "pong received");

  auto f = c->call_tool("fail", {});
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->is_error);
  EXPECT_EQ(f->text, "it failed on purpose");

  auto unknown = c->call_tool("nope", {});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown tool nope"), std::string::npos) << unknown.error().message;
}

TEST_F(McpClientTest, AnAnnouncedChangeOfToolsIsListedAgain) {
  auto c = client();
  ASSERT_TRUE(c->connect());
  EXPECT_FALSE(c->find_tool("late").has_value());
  EXPECT_EQ(count_method(received(log_), "tools/list"), 2u);  // two pages
  auto grown = c->call_tool("grow", {});                      // announces the change before it answers
  ASSERT_TRUE(grown) << grown.error().message;
  ASSERT_TRUE(c->find_tool("late").has_value());
  EXPECT_EQ(c->find_tool("late")->description, "Added while running.");
  EXPECT_EQ(count_method(received(log_), "tools/list"), 4u);  // both pages once more, and only once
  EXPECT_EQ(c->tools().size(), 8u);
}

TEST_F(McpClientTest, ConcurrentCallsGetTheirOwnAnswers) {
  auto c = client();
  ASSERT_TRUE(c->connect());
  std::vector<std::thread> threads;
  std::vector<std::string> answers(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto r = c->call_tool("echo", {{"message", "m" + std::to_string(i)}});
      answers[i] = r ? r->text : r.error().message;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(answers[i], "echo: m" + std::to_string(i));
}

TEST_F(McpClientTest, ACrashFailsTheCallThenTheNextCallRestartsTheServer) {
  auto c = client();
  ASSERT_TRUE(c->connect());
  auto first = c->call_tool("get-pid", {});
  ASSERT_TRUE(first);

  auto crashed = c->call_tool("crash", {});
  ASSERT_FALSE(crashed);
  EXPECT_EQ(crashed.error().code, ErrorCode::tool_failed);
  EXPECT_NE(crashed.error().message.find("the server exited during the call (exit code 3)"),
            std::string::npos)
      << crashed.error().message;
  EXPECT_FALSE(c->connected());

  auto second = c->call_tool("get-pid", {});
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_NE(second->text, first->text);  // a new process
  EXPECT_EQ(count_method(received(log_), "initialize"), 2u);
}

TEST_F(McpClientTest, CallsThatFindTheServerGoneRestartItOnce) {
  auto c = client();
  ASSERT_TRUE(c->connect());
  ASSERT_FALSE(c->call_tool("crash", {}));
  std::vector<std::thread> threads;
  std::vector<std::string> pids(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto r = c->call_tool("get-pid", {});
      pids[i] = r ? r->text : r.error().message;
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& pid : pids) EXPECT_EQ(pid, pids[0]);  // one new server answered them all
  EXPECT_EQ(count_method(received(log_), "initialize"), 2u);
}

TEST_F(McpClientTest, AStopRequestCancelsTheCallAndTellsTheServer) {
  auto c = client();
  ASSERT_TRUE(c->connect());
  std::stop_source stop;
  std::thread canceller([&] {
    std::this_thread::sleep_for(300ms);
    stop.request_stop();
  });
  const auto start = Clock::now();
  auto r = c->call_tool("slow", {}, stop.get_token());
  canceller.join();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::timeout);
  EXPECT_NE(r.error().message.find("cancelled"), std::string::npos) << r.error().message;
  EXPECT_LT(Clock::now() - start, 5s);

  // The server hears of it: notifications/cancelled naming the call's request id.
  std::int64_t call_id = -1;
  bool cancelled = false;
  for (int i = 0; i < 100 && !cancelled; ++i) {
    for (const auto& m : received(log_)) {
      if (m.contains("method") && m.at("method") == "tools/call")
        call_id = m.at("id").to_number<std::int64_t>();
      if (m.contains("method") && m.at("method") == "notifications/cancelled")
        cancelled = m.at("params").at("requestId").to_number<std::int64_t>() == call_id;
    }
    if (!cancelled) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(cancelled);
  // The session is still usable.
  auto again = c->call_tool("echo", {{"message", "still here"}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->text, "echo: still here");
}

TEST_F(McpClientTest, ACallOutlivingItsTimeOutFails) {
  // The time-out bounds the handshake too: 400 ms was too short for python3 to start on a loaded machine.
  auto c = client(2000ms);
  ASSERT_TRUE(c->connect());
  auto r = c->call_tool("slow", {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::timeout);
  EXPECT_NE(r.error().message.find("timed out after 2000 ms"), std::string::npos) << r.error().message;
}

TEST_F(McpClientTest, AProgramThatIsNotThereFailsToConnect) {
  McpStdioOptions stdio;
  stdio.program = "/nonexistent/sigil-mcp-server";
  McpClient c("t", make_mcp_stdio_transport(stdio));
  auto r = c.connect();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::tool_missing);
}

TEST_F(McpClientTest, AServerThatExitsAtOnceFailsToConnect) {
  McpStdioOptions stdio;
  stdio.program = "/bin/sh";
  stdio.args = {"-c", "exit 7"};
  McpClient c("t", make_mcp_stdio_transport(stdio), {5s});
  const auto start = Clock::now();
  auto r = c.connect();
  ASSERT_FALSE(r);
  // Which comes first, our write or the news of its exit, is a race: either way the reason is named.
  const std::string& m = r.error().message;
  EXPECT_TRUE(m.find("exited during the call (exit code 7)") != std::string::npos ||
              m.find("cannot write to the server: Broken pipe") != std::string::npos)
      << m;
  EXPECT_LT(Clock::now() - start, 4s);  // not by time-out
}

TEST(McpToolResult, TextItemsJoinedOthersNamed) {
  const json::value result = json::parse(R"({"content": [
      {"type": "text", "text": "one"},
      {"type": "image", "data": "AAAA", "mimeType": "image/png"},
      {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
      {"type": "resource_link", "uri": "file:///b.txt", "name": "b"},
      {"type": "text", "text": "two"}], "isError": false})");
  const McpToolResult r = mcp_tool_result(result);
  EXPECT_EQ(r.text, "one\n[image image/png]\ninside\n[resource link file:///b.txt]\ntwo");
  EXPECT_FALSE(r.is_error);
  EXPECT_TRUE(mcp_tool_result(json::parse(R"({"content": [], "isError": true})")).is_error);
  EXPECT_EQ(mcp_tool_result(json::parse(R"({"content": [], "structuredContent": {"a": 1}})")).text,
            R"({"a":1})");
}

}  // namespace
}  // namespace sigil::actions
