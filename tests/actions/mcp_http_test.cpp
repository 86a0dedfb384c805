// The MCP client over Streamable HTTP against the official reference server
// (@modelcontextprotocol/server-everything in its streamableHttp mode, from tests/e2e/node_modules: run
// scripts/npm-deps) on a free local port.
#include "sigil/actions/mcp_http.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mcp_test_support.h"
#include "sigil/net/io_threads.h"
#include "support/python_server.h"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace sigil::actions {
namespace {

using namespace std::chrono_literals;

std::string everything() {
  return std::string(SIGIL_SOURCE_DIR) +
         "/tests/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
}

// The reference server in HTTP mode; killed (with its group) at the end.
class EverythingHttp {
 public:
  EverythingHttp() : port_(sigil::testing::free_loopback_port()) {
    std::vector<std::string> env_storage{"PORT=" + std::to_string(port_)};
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string_view(*e).rfind("PORT=", 0) != 0) env_storage.emplace_back(*e);
    }
    std::vector<char*> envp;
    for (auto& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string node = "node", script = everything(), mode = "streamableHttp";
    char* argv[] = {node.data(), script.data(), mode.data(), nullptr};
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    if (posix_spawnp(&pid_, "node", nullptr, &attr, argv, envp.data()) != 0) pid_ = -1;
    posix_spawnattr_destroy(&attr);
  }
  ~EverythingHttp() { stop(); }
  EverythingHttp(const EverythingHttp&) = delete;
  EverythingHttp& operator=(const EverythingHttp&) = delete;

  void stop() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
  bool running() const { return pid_ > 0; }

 private:
  int port_;
  pid_t pid_ = -1;
};

std::shared_ptr<net::HttpClient> http_client() {
  return std::make_shared<net::HttpClient>(std::make_shared<net::IoThreads>(1));
}

using testing::connect_when_up;

TEST(McpHttp, TheReferenceServerOverStreamableHttp) {
  ASSERT_TRUE(std::filesystem::exists(everything())) << "run scripts/npm-deps";
  EverythingHttp server;
  ASSERT_TRUE(server.running());
  McpClient client("everything",
                   make_mcp_http_transport({server.url(), {{"X-Test", "1"}}, nullptr}, http_client()), {3s});
  auto connected = connect_when_up(client);
  ASSERT_TRUE(connected) << connected.error().message;
  ASSERT_TRUE(client.find_tool("echo").has_value());

  auto echo = client.call_tool("echo", {{"message", "over http"}});
  ASSERT_TRUE(echo) << echo.error().message;
  EXPECT_EQ(echo->text, "Echo: over http");

  // 4 s with a 3 s time-out: progress notifications on the SSE stream keep the call alive.
  auto longer = client.call_tool("trigger-long-running-operation", {{"duration", 4}, {"steps", 8}});
  ASSERT_TRUE(longer) << longer.error().message;
  EXPECT_NE(longer->text.find("Long running operation completed"), std::string::npos) << longer->text;

  // The server asks for a form in the middle of the call (on the call's SSE stream); sigil's default
  // policy declines, by a POST of the answer, and the call carries the note.
  ASSERT_TRUE(client.find_tool("trigger-elicitation-request").has_value())
      << "the server offers its elicitation tool only to a client that declares elicitation";
  auto asked = client.call_tool("trigger-elicitation-request", {});
  ASSERT_TRUE(asked) << asked.error().message;
  EXPECT_NE(asked->text.find("User declined"), std::string::npos) << asked->text;
  ASSERT_EQ(asked->notes.size(), 1u);
  EXPECT_NE(asked->notes[0].find("\"Please provide inputs for the following fields:\"; sigil declined"),
            std::string::npos)
      << asked->notes[0];
}

TEST(McpHttp, TheReferenceServerGetsTheDefaultsOfItsForm) {
  ASSERT_TRUE(std::filesystem::exists(everything())) << "run scripts/npm-deps";
  EverythingHttp server;
  ASSERT_TRUE(server.running());
  McpClientOptions options{10s};
  options.elicitation = McpElicitationPolicy::defaults;
  McpClient client("everything", make_mcp_http_transport({server.url(), {}, nullptr}, http_client()),
                   options);
  auto connected = connect_when_up(client);
  ASSERT_TRUE(connected) << connected.error().message;
  // Its form requires "name", which has no default: "defaults" must decline rather than invent one.
  auto asked = client.call_tool("trigger-elicitation-request", {});
  ASSERT_TRUE(asked) << asked.error().message;
  EXPECT_NE(asked->text.find("User declined"), std::string::npos) << asked->text;
  ASSERT_EQ(asked->notes.size(), 1u);
  EXPECT_NE(asked->notes[0].find("the required field \"name\" has no default"), std::string::npos)
      << asked->notes[0];
}

TEST(McpHttp, AServerThatIsNotThereFailsFast) {
  McpClient client(
      "none",
      make_mcp_http_transport(
          {"http://127.0.0.1:" + std::to_string(sigil::testing::free_loopback_port()) + "/mcp", {}, nullptr},
          http_client()),
      {10s});
  const auto start = std::chrono::steady_clock::now();
  auto r = client.connect();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("initialize"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            5s);  // the refused connection answers, not the time-out
}

}  // namespace
}  // namespace sigil::actions
