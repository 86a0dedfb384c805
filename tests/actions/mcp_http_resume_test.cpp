// The Streamable HTTP transport's streams against tests/support/mcp_http_test_server.py (a tiny Python
// server that drops SSE streams on demand): the standalone GET stream, resuming a dropped answer stream
// with Last-Event-ID after the server's `retry:` wait, giving up with a clear error, and a 401's message.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mcp_test_support.h"
#include "sigil/actions/mcp_http.h"
#include "sigil/net/io_threads.h"
#include "sigil/text/ascii.h"
#include "support/python_server.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// tests/support/mcp_http_test_server.py, its MCP endpoint at /mcp.
struct TestServer : sigil::testing::PythonServer {
  TestServer() : PythonServer("mcp_http_test_server.py") {}
  std::string url() const { return base() + "/mcp"; }
};

std::string header(const json::object& request, std::string_view name) {
  for (const auto& [k, v] : request.at("headers").as_object()) {
    if (text::ascii::iequals(k, name)) return std::string(v.as_string());
  }
  return "";
}

std::unique_ptr<McpClient> client_for(const TestServer& server,
                                      std::vector<std::pair<std::string, std::string>> headers = {}) {
  auto http = std::make_shared<net::HttpClient>(std::make_shared<net::IoThreads>(1));
  return std::make_unique<McpClient>(
      "t", make_mcp_http_transport({server.url(), std::move(headers), nullptr}, std::move(http)),
      McpClientOptions{10s});
}

using testing::connect_when_up;

TEST(McpHttpStreams, TheStandaloneGetStreamOpensAfterTheHandshake) {
  TestServer server;
  auto c = client_for(server);
  ASSERT_TRUE(connect_when_up(*c));
  std::vector<json::object> gets;
  for (int i = 0; i < 100 && gets.empty(); ++i) {
    std::this_thread::sleep_for(50ms);
    for (const auto& r : server.requests()) {
      if (r.at("verb") == "GET") gets.push_back(r);
    }
  }
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(header(gets[0], "Accept"), "text/event-stream");
  EXPECT_EQ(header(gets[0], "Mcp-Session-Id"), "session-1");
  EXPECT_EQ(header(gets[0], "Last-Event-ID"), "");
  // The version the server chose in its initialize answer, not the one we proposed.
  EXPECT_EQ(header(gets[0], "MCP-Protocol-Version"), "2025-06-18");
}

TEST(McpHttpStreams, ADroppedAnswerStreamIsResumedWithLastEventIdAfterTheRetryWait) {
  TestServer server;
  auto c = client_for(server);
  ASSERT_TRUE(connect_when_up(*c));
  auto r = c->call_tool("drop", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "resumed");
  double posted = 0, resumed = 0;
  for (const auto& q : server.requests()) {
    if (q.at("verb") == "POST" && q.at("body").as_object().if_contains("method") != nullptr &&
        q.at("body").at("method") == "tools/call")
      posted = q.at("time").to_number<double>();
    if (q.at("verb") == "GET" && header(q, "Last-Event-ID") == "p-1") {
      resumed = q.at("time").to_number<double>();
      EXPECT_EQ(header(q, "Mcp-Session-Id"), "session-1");
    }
  }
  ASSERT_GT(posted, 0);
  ASSERT_GT(resumed, 0) << "no GET with Last-Event-ID: p-1";
  EXPECT_GE(resumed - posted, 0.29) << "the client must wait the server's retry: 300 ms";
  EXPECT_LT(resumed - posted, 3.0);
}

TEST(McpHttpStreams, AStreamWithoutAnEventIdCannotBeResumedAndFailsAtOnce) {
  TestServer server;
  auto c = client_for(server);
  ASSERT_TRUE(connect_when_up(*c));
  const auto start = std::chrono::steady_clock::now();
  auto r = c->call_tool("drop-no-id", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("the event stream ended without an answer"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("no event id"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(McpHttpStreams, ResumingGivesUpAfterFiveStreamsInARowBringNothing) {
  TestServer server;
  auto c = client_for(server);
  ASSERT_TRUE(connect_when_up(*c));
  auto r = c->call_tool("drop-forever", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("resumed 5 times in a row"), std::string::npos) << r.error().message;
  int resumes = 0;
  for (const auto& q : server.requests()) {
    if (q.at("verb") == "GET" && header(q, "Last-Event-ID").rfind("f-", 0) == 0) ++resumes;
  }
  EXPECT_EQ(resumes, 5);
}

TEST(McpHttpStreams, ARefusedTokenNamesTheChallengeAndWhatToConfigure) {
  TestServer server;
  ASSERT_TRUE(connect_when_up(*client_for(server)));  // the server is up
  auto c = client_for(server, {{"Authorization", "Bearer wrong"}});
  auto r = c->connect();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("HTTP 401: invalid_token"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("resource_metadata=\"http://x/prm\""), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("or configure oauth"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace sigil::actions
