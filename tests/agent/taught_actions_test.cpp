// Teach only what works (issue 13, item 7): search is taught (prompt and tools) only with a provider,
// fetch-page only when page fetching is on; untaught, a directive written anyway still gets the handler's
// clear error.
#include <gtest/gtest.h>

#include <boost/json/value.hpp>

#include "sigil/actions/builtin_handlers.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/openai.h"
#include "store/store_test_support.h"
#include "support/fake_openai_server.h"

namespace sigil::agent {
namespace {

using namespace std::chrono_literals;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;

struct Wired {
  explicit Wired(actions::BuiltinConfig builtin) {
    auto built = actions::builtin_handlers(builtin);
    EXPECT_TRUE(built) << built.error().message;
    handlers = std::move(*built);
    store = store::testing::open_or_fail(":memory:");
    client = model::make_openai_client(sigil::testing::openai_config_for(server));
    AgentConfig config;
    config.tools = ToolsMode::on;
    config.untaught_actions = actions::untaught_actions(builtin);
    agent = std::make_unique<Agent>(registry, handlers, *store, *client, config);
  }

  // The tool names offered in the first model request of a turn.
  std::vector<std::string> offered_tools() {
    server.enqueue(FakeResponse::text_stream({"ok"}));
    TurnInput in;
    in.user = "u";
    in.conversation = "c";
    in.text = "hi";
    agent->start_turn(in, nullptr);
    agent->wait_idle();
    std::vector<std::string> names;
    const auto requests = server.requests();
    EXPECT_FALSE(requests.empty());
    if (requests.empty() || !requests[0].json.is_object()) return names;
    if (const auto* tools = requests[0].json.as_object().if_contains("tools")) {
      for (const auto& t : tools->as_array()) names.emplace_back(t.at("function").at("name").as_string());
    }
    return names;
  }

  static bool has(const std::vector<std::string>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  }

  FakeOpenAiServer server;
  catalog::Registry registry = catalog::Registry::builtin();
  exec::HandlerTable handlers;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<model::ModelClient> client;
  std::unique_ptr<Agent> agent;
};

TEST(TaughtActions, WithoutProvidersNeitherSearchNorFetchIsTaught) {
  actions::BuiltinConfig builtin;
  builtin.fetch.enabled = false;
  Wired s(builtin);
  const std::string& prompt = s.agent->system_message();
  EXPECT_EQ(prompt.find("[SEARCH:"), std::string::npos);
  EXPECT_EQ(prompt.find("googleSearch"), std::string::npos);
  EXPECT_EQ(prompt.find("[FETCH:"), std::string::npos);
  EXPECT_EQ(prompt.find("webpageToText"), std::string::npos);
  EXPECT_NE(prompt.find("[CALCULATE:"), std::string::npos);  // the rest is still taught
  const auto tools = s.offered_tools();
  EXPECT_FALSE(tools.empty());
  EXPECT_FALSE(Wired::has(tools, "search"));
  EXPECT_FALSE(Wired::has(tools, "fetch-page"));
}

TEST(TaughtActions, AProviderTeachesSearchAndFetchingIsOnByDefault) {
  actions::BuiltinConfig builtin;
  builtin.search.provider = {"searxng", "", "http://127.0.0.1:9", 5};
  Wired s(builtin);
  const std::string& prompt = s.agent->system_message();
  EXPECT_NE(prompt.find("[SEARCH:"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("webpageToText"), std::string::npos);
  EXPECT_NE(s.agent->system_message(true).find("[SEARCH:"), std::string::npos);  // say mode too
  const auto tools = s.offered_tools();
  EXPECT_TRUE(Wired::has(tools, "search"));
  EXPECT_TRUE(Wired::has(tools, "fetch-page"));
}

TEST(TaughtActions, UntaughtMeansNoToolsOnlyForThoseActions) {
  EXPECT_EQ(actions::untaught_actions(actions::BuiltinConfig{}),
            (std::vector<std::string>{"search", "createAIImage", "viewImage"}));
}

}  // namespace
}  // namespace sigil::agent
