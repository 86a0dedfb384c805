// A chat platform's message id (TurnInput::message_id): stored with the user's message
// (store::Message::platform_id) and shown to the model as "[message <id>]" before that message's text, so
// the model can name it (<react message="<id>"/>). The model's own replies are never marked.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <tuple>
#include <vector>

#include "agent/end_observer.h"
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

TEST(PlatformMessageId, IsStoredAndShownBeforeTheUsersTextOnly) {
  store::testing::TempDir dir;
  auto store = store::testing::open_or_fail(dir.file("sigil.db"));
  const catalog::Registry registry = catalog::Registry::builtin();
  exec::HandlerTable handlers;
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"Noted."}));
  server.enqueue(FakeResponse::text_stream({"Done."}));
  auto client = model::make_openai_client(sigil::testing::openai_config_for(server));
  Agent agent(registry, handlers, *store, *client, AgentConfig{});
  for (const auto& [text, turn, id] : {std::tuple{"first", "t1", "17"}, std::tuple{"second", "t2", "18"}}) {
    EXPECT_EQ(testing::run_turn_of_u1(agent, text, turn, id).status, TurnStatus::Ok);
  }
  agent.wait_idle();

  auto history = store->recent_messages({"u1", "c1", store::MemoryScope::per_user}, 50);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 4u);
  EXPECT_EQ((*history)[0].text, "first");  // the id is data, not part of the text
  EXPECT_EQ((*history)[0].platform_id, "17");
  EXPECT_EQ((*history)[1].platform_id, "");
  EXPECT_EQ((*history)[2].platform_id, "18");

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto& messages = requests[1].json.at("messages").as_array();
  ASSERT_EQ(messages.size(), 4u);  // the system message, then the history
  EXPECT_EQ(messages[1].at("content").as_string(), "[message 17] first");
  EXPECT_EQ(messages[2].at("content").as_string(), "Noted.");
  EXPECT_EQ(messages[3].at("content").as_string(), "[message 18] second");
}

}  // namespace
}  // namespace sigil::agent
