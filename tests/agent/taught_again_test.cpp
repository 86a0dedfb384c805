// Taught again (AgentConfig::taught_registry): when what the agent teaches changes while it runs (an MCP
// server announced new tools), the next model call's system message and tools say so, and a call to a tool
// that was not there at start reaches its handler by name; a call already under way keeps what it was taught.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/openai.h"
#include "store/store_test_support.h"
#include "support/fake_openai_server.h"

namespace sigil::agent {
namespace {

namespace json = boost::json;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;

catalog::RegistryOptions options_with(const std::vector<std::string>& tools) {
  catalog::RegistryOptions o;
  o.mcp_servers = {"t"};
  for (const std::string& name : tools) {
    json::object schema{{"type", "object"}, {"properties", {{"word", {{"type", "string"}}}}}};
    o.mcp_tools.push_back({"t", name, "The " + name + " tool.", schema});
  }
  return o;
}

std::vector<std::string> offered(const sigil::testing::RecordedRequest& r) {
  std::vector<std::string> names;
  if (const auto* tools = r.json.as_object().if_contains("tools"))
    for (const auto& t : tools->as_array()) names.emplace_back(t.at("function").at("name").as_string());
  return names;
}

std::string system_of(const sigil::testing::RecordedRequest& r) {
  return std::string(r.json.at("messages").at(0).at("content").as_string());
}

bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A streamed completion that calls one tool.
FakeResponse tool_call(const std::string& name, const std::string& arguments) {
  json::object call{{"index", 0},
                    {"id", "call-1"},
                    {"type", "function"},
                    {"function", {{"name", name}, {"arguments", arguments}}}};
  return FakeResponse::sse({sigil::testing::openai_chunk(json::object{{"tool_calls", json::array{call}}}),
                            sigil::testing::openai_chunk(json::object{}, "tool_calls")});
}

struct Taught {
  Taught() {
    handlers.add("mcp", [this](const exec::Directive& d, exec::ActionContext&) {
      std::lock_guard lock(mu);
      ran.push_back(json::serialize(d.args));
      return exec::HandlerResult::ok("done");
    });
    store = store::testing::open_or_fail(":memory:");
    client = model::make_openai_client(sigil::testing::openai_config_for(server));
    AgentConfig config;
    config.tools = ToolsMode::on;
    config.taught_registry = [this]() -> std::shared_ptr<const catalog::Registry> {
      ++asked;
      if (!grown.exchange(false)) return nullptr;
      return std::make_shared<const catalog::Registry>(
          catalog::Registry::builtin(options_with({"echo", "late"})));
    };
    agent = std::make_unique<Agent>(registry, handlers, *store, *client, config);
  }

  void turn(const std::string& text) {
    TurnInput in;
    in.user = "u";
    in.conversation = "c";
    in.text = text;
    agent->start_turn(in, nullptr);
    agent->wait_idle();
  }

  FakeOpenAiServer server;
  catalog::Registry registry = catalog::Registry::builtin(options_with({"echo"}));
  exec::HandlerTable handlers;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<model::ModelClient> client;
  std::atomic<bool> grown{false};
  std::atomic<int> asked{0};
  std::mutex mu;
  std::vector<std::string> ran;
  std::unique_ptr<Agent> agent;  // last: stopped first
};

TEST(TaughtAgain, ANewToolIsTaughtToTheNextCallAndCallableByName) {
  Taught s;
  s.server.enqueue(FakeResponse::text_stream({"ok"}));
  s.turn("hi");
  auto requests = s.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_TRUE(has(offered(requests[0]), "mcp_t_echo"));
  EXPECT_FALSE(has(offered(requests[0]), "mcp_t_late"));
  EXPECT_EQ(system_of(requests[0]).find("mcp_t_late"), std::string::npos);
  EXPECT_EQ(s.agent->teachings(), 1u);

  // The server grew a tool: the next call is taught it, in the prompt and as a tool, and calls it.
  s.grown = true;
  s.server.enqueue(tool_call("mcp_t_late", R"({"word": "tea"})"));
  s.server.enqueue(FakeResponse::text_stream({"called"}));
  s.turn("use the new tool");
  requests = s.server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(has(offered(requests[1]), "mcp_t_late"));
  EXPECT_TRUE(has(offered(requests[1]), "mcp_t_echo"));
  EXPECT_NE(system_of(requests[1]).find("<mcp_t_late>"), std::string::npos) << system_of(requests[1]);
  EXPECT_EQ(s.agent->teachings(), 2u);
  EXPECT_NE(s.agent->system_message().find("<mcp_t_late>"), std::string::npos);
  {
    std::lock_guard lock(s.mu);
    ASSERT_EQ(s.ran.size(), 1u);
    const json::value args = json::parse(s.ran[0]);
    EXPECT_EQ(args.at("server"), "t");
    EXPECT_EQ(args.at("tool"), "late");
    EXPECT_EQ(args.at("arguments").at("word"), "tea");
  }
  // The tool's result went back to the model in the call after it, which was taught the same.
  EXPECT_NE(requests[2].body.find("done"), std::string::npos);
  EXPECT_TRUE(has(offered(requests[2]), "mcp_t_late"));
  EXPECT_GE(s.asked.load(), 3);  // asked at every call's start
}

TEST(TaughtAgain, WithoutAChangeTheTeachingIsKeptAndAnUnknownToolIsRefused) {
  Taught s;
  s.server.enqueue(tool_call("mcp_t_late", "{}"));  // not taught: no such tool
  s.server.enqueue(FakeResponse::text_stream({"sorry"}));
  s.turn("call it anyway");
  auto requests = s.server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("no such tool here"), std::string::npos) << requests[1].body;
  EXPECT_EQ(s.agent->teachings(), 1u);
  std::lock_guard lock(s.mu);
  EXPECT_TRUE(s.ran.empty());
}

}  // namespace
}  // namespace sigil::agent
