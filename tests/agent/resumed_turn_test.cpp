// A turn started again under its id (a chat channel resuming a platform message whose turn a crash cut
// off, agent.h TurnInput::turn_id): the history keeps the user's message once.
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <vector>

#include "agent/end_observer.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/replay.h"
#include "store/store_test_support.h"

namespace sigil::agent {
namespace {

// An agent on a file store whose model answers every call "Answer.", and the user texts of the history.
class ResumedTurn : public ::testing::Test {
 protected:
  static model::ReplayConfig answer() {
    model::ReplayConfig replay;
    replay.path = "replay";
    replay.text = R"({"reply":"Answer."})";
    replay.tokens_per_second = 0;
    return replay;
  }
  // "turn_id:text" with the turn ids, or the texts alone.
  std::vector<std::string> user_messages(bool with_turn_ids) {
    auto history = store->recent_messages({"u1", "c1", store::MemoryScope::per_user}, 50);
    EXPECT_TRUE(history.ok());
    std::vector<std::string> users;
    if (history.ok())
      for (const store::Message& m : *history)
        if (m.role == "user") users.push_back(with_turn_ids ? m.turn_id + ":" + m.text : m.text);
    return users;
  }

  store::testing::TempDir dir;
  std::unique_ptr<store::Store> store = store::testing::open_or_fail(dir.file("sigil.db"));
  const catalog::Registry registry = catalog::Registry::builtin();
  exec::HandlerTable handlers;
  std::unique_ptr<model::ModelClient> model = model::make_replay_client(answer());
  Agent agent{registry, handlers, *store, *model, AgentConfig{}};
};

TEST_F(ResumedTurn, DoesNotStoreItsUserMessageTwice) {
  // The first run, the same message resumed after a crash, then another text under the same id (a new
  // message after all: stored as usual).
  for (const auto& [text, turn] : {std::pair{"hi", "tg-7"}, {"hi", "tg-7"}, {"other", "tg-7"}}) {
    EXPECT_EQ(testing::run_turn_of_u1(agent, text, turn).status, TurnStatus::Ok);
    agent.wait_idle();
  }
  EXPECT_EQ(user_messages(false), (std::vector<std::string>{"hi", "other"}));
}

// TurnInput::fresh_id: the caller made the id for this turn (the web chat's), so the agent does not read
// the history for an earlier run of it: the turn keeps its id and its message is stored as given (here the
// same text under the same id twice, which a caller keeping its promise never sends, shows no search).
TEST_F(ResumedTurn, AFreshIdIsNotLookedUp) {
  for (int i = 0; i < 2; ++i) {
    TurnInput in;
    in.user = "u1";
    in.conversation = "c1";
    in.text = "hi";
    in.turn_id = "web-1";
    in.fresh_id = true;
    auto observer = std::make_shared<testing::EndObserver>();
    EXPECT_EQ(agent.start_turn(std::move(in), observer), "web-1");
    const TurnSummary summary = observer->wait();
    EXPECT_EQ(summary.status, TurnStatus::Ok);
    EXPECT_EQ(summary.turn_id, "web-1");
    agent.wait_idle();
  }
  EXPECT_EQ(user_messages(true), (std::vector<std::string>{"web-1:hi", "web-1:hi"}));
}

}  // namespace
}  // namespace sigil::agent
