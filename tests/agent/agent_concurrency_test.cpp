// The agent's turns side by side: many conversations at once, turns of one conversation in order (and
// stateless ones not), cancelling and destroying with turns open, and a slow handler that must not hold up
// another conversation.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "agent_fixture.h"
#include "sigil/agent/agent.h"

namespace sigil::agent {
namespace {

using namespace std::chrono_literals;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;
using testing::AgentTest;
using testing::RecordingObserver;

// A reply of ten words at five tokens a second: a turn still under way when the test acts on it.
std::unique_ptr<model::ModelClient> slow_replay(const std::string& path, model::TokenSplit split) {
  model::ReplayConfig config;
  config.path = path;
  std::ofstream(config.path) << R"({"reply": "one two three four five six seven eight nine ten"})" << '\n';
  config.tokens_per_second = 5;
  config.split = split;
  return model::make_replay_client(config);
}

// A `remember` handler that cannot finish before another turn has: it waits for `other_ended` and gives up
// with `gave_up` after 20 s.
void add_remember_after(exec::HandlerTable& handlers, std::shared_future<void> other_ended,
                        const std::string& gave_up) {
  handlers.add("remember", [other_ended, gave_up](const exec::Directive&, exec::ActionContext&) {
    if (other_ended.wait_for(20s) != std::future_status::ready) return exec::HandlerResult::error(gave_up);
    return exec::HandlerResult::ok("remembered");
  });
}

// The waiting turn's one result is the handler's own: the other turn ended while it waited.
void expect_remembered_after_waiting(const TurnSummary& summary) {
  ASSERT_EQ(summary.calls.size(), 1u);
  ASSERT_EQ(summary.calls[0].report.results.size(), 1u);
  EXPECT_EQ(summary.calls[0].report.results[0].message, "remembered");
}

TEST_F(AgentTest, ManyConversationsAtOnce) {
  auto client = replay({R"({"reply": "Hi <react emoji=\"thumbsup\"/> there."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  std::vector<std::shared_ptr<RecordingObserver>> observers;
  for (int i = 0; i < 8; ++i) {
    observers.push_back(std::make_shared<RecordingObserver>());
    TurnInput in = input("hello", "");
    in.conversation = "c" + std::to_string(i);
    agent.start_turn(std::move(in), observers.back());
  }
  for (auto& o : observers) {
    TurnSummary s = o->wait();
    EXPECT_EQ(s.status, TurnStatus::Ok);
    EXPECT_EQ(o->text(), "Hi there.");
  }
  agent.wait_idle();
  EXPECT_EQ(agent.active_turns(), 0u);
}

TEST_F(AgentTest, CancelEndsTheTurnWithoutAnotherCall) {
  auto client = slow_replay(dir_.file("slow.jsonl"), model::TokenSplit::words);
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("count"), observer);
  EXPECT_TRUE(agent.cancel("t1"));
  EXPECT_FALSE(agent.cancel("no-such-turn"));
  TurnSummary summary = observer->wait();
  EXPECT_EQ(summary.status, TurnStatus::ModelError);
  ASSERT_EQ(summary.diagnostics.size(), 1u);
  EXPECT_EQ(summary.diagnostics[0], "model-error: cancelled");
  // The turn begins on an agent thread: the cancel may come before its first call starts (then none is
  // made) or during it; never a second call.
  EXPECT_LE(summary.calls.size(), 1u);
  agent.wait_idle();
}

TEST_F(AgentTest, DestroyingTheAgentEndsOpenTurns) {
  auto client = slow_replay(dir_.file("slow.jsonl"), model::TokenSplit::awkward);
  auto observer = std::make_shared<RecordingObserver>();
  auto waiting = std::make_shared<RecordingObserver>();
  {
    Agent agent(registry_, handlers_, *store_, *client, {});
    agent.start_turn(input("count"), observer);
    agent.start_turn(input("count again", "t2"), waiting);  // same conversation: waits for t1
    EXPECT_EQ(agent.active_turns(), 2u);
  }
  EXPECT_EQ(observer->ends(), 1);
  EXPECT_EQ(observer->wait().status, TurnStatus::ModelError);
  EXPECT_EQ(waiting->ends(), 1);
  EXPECT_EQ(waiting->wait().status, TurnStatus::ModelError);
}

TEST_F(AgentTest, TurnsOfOneConversationRunOneAfterAnother) {
  auto client = replay(
      {R"({"match": "first", "reply": "Answer one."})", R"({"match": "second", "reply": "Answer two."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto one = std::make_shared<RecordingObserver>();
  auto two = std::make_shared<RecordingObserver>();
  agent.start_turn(input("first", "t1"), one);
  agent.start_turn(input("second", "t2"), two);
  EXPECT_EQ(one->wait().status, TurnStatus::Ok);
  EXPECT_EQ(two->wait().status, TurnStatus::Ok);
  agent.wait_idle();
  EXPECT_EQ(agent.active_turns(), 0u);
  EXPECT_EQ(history_column(&store::Message::text),
            (Strings{"first", "Answer one.", "second", "Answer two."}));
}

TEST_F(AgentTest, StatelessTurnUsesItsMessagesAndWritesNoHistory) {
  FakeOpenAiServer server;
  enqueue_tea_search(server, "Checking.", {"Found ", "your notes."});
  auto client = openai(server);
  Agent agent(registry_, handlers_, *store_, *client, {});
  TurnInput in;
  in.user = "u1";
  in.conversation = "c1";
  in.turn_id = "s1";
  in.text = "ignored";
  in.messages = std::vector<model::ChatMessage>{{"system", "Be brief.", {}, {}, {}},
                                                {"user", "What did I say?", {}, {}, {}},
                                                {"assistant", "About what?", {}, {}, {}},
                                                {"user", "tea", {}, {}, {}}};
  in.model = "other-model";
  in.max_tokens = 77;
  const auto [summary, observer] = run_turn(agent, std::move(in));

  EXPECT_EQ(summary.status, TurnStatus::Ok);
  EXPECT_EQ(observer->text(), "Checking.\n\nFound your notes.");
  EXPECT_EQ(searches_.load(), 1);
  EXPECT_TRUE(history().empty()) << "a stateless turn must not touch the stored history";

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].json.at("model").as_string(), "other-model");
  EXPECT_EQ(requests[0].json.at("max_tokens").as_int64(), 77);
  const auto& first = requests[0].json.at("messages").as_array();
  ASSERT_EQ(first.size(), 5u);  // sigil's system message, then the request's four
  EXPECT_EQ(first[0].at("role").as_string(), "system");
  EXPECT_NE(std::string(first[0].at("content").as_string()).find("searchArchive"), std::string::npos);
  EXPECT_EQ(first[1].at("content").as_string(), "Be brief.");
  EXPECT_EQ(first[4].at("content").as_string(), "tea");
  // The second call carries the first reply and its results, in memory only.
  const auto& second = requests[1].json.at("messages").as_array();
  ASSERT_EQ(second.size(), 7u);
  EXPECT_EQ(second[5].at("role").as_string(), "assistant");
  EXPECT_EQ(second[5].at("content").as_string(), "Checking.");
  EXPECT_EQ(second[6].at("role").as_string(), "user");
  EXPECT_NE(std::string(second[6].at("content").as_string()).find("green tea notes"), std::string::npos);
}

TEST_F(AgentTest, StatelessTurnsOfOneConversationDoNotWaitForEachOther) {
  // The first turn's handler waits until the second turn has ended: with per-conversation queueing the
  // second would never start and the handler would give up.
  std::promise<void> second_ended;
  std::shared_future<void> second_done = second_ended.get_future().share();
  add_remember_after(handlers_, second_done, "the other turn never ended");
  auto client = replay({R"({"match": "slow", "reply": "Noted. [REMEMBER:tea]"})",
                        R"({"match": "quick", "reply": "Quick answer."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto stateless = [](std::string text, std::string turn) {
    TurnInput in;
    in.user = "u1";
    in.conversation = "c1";
    in.turn_id = std::move(turn);
    in.messages = std::vector<model::ChatMessage>{{"user", std::move(text), {}, {}, {}}};
    return in;
  };
  auto slow = std::make_shared<RecordingObserver>();
  auto quick = std::make_shared<RecordingObserver>();
  agent.start_turn(stateless("slow", "s1"), slow);
  agent.start_turn(stateless("quick", "s2"), quick);
  EXPECT_EQ(quick->wait().status, TurnStatus::Ok);
  second_ended.set_value();
  expect_remembered_after_waiting(slow->wait());
}

TEST_F(AgentTest, ASlowHandlerDoesNotStallOtherConversationsOnTheClientThread) {
  // The replay client drives every call from ONE timer thread. Conversation A's handler blocks until
  // conversation B's turn has ended; if A's call ended (executor.finish()) on that thread, B's tokens could
  // not be delivered until A's handler gave up.
  std::promise<void> b_ended;
  std::shared_future<void> b_done = b_ended.get_future().share();
  add_remember_after(handlers_, b_done, "conversation b never ended");
  auto client = replay({R"({"match": "slow", "reply": "Noted. [REMEMBER:tea]"})",
                        R"({"match": "other", "reply": "Other conversation, many words in this reply."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto a = std::make_shared<RecordingObserver>();
  auto b = std::make_shared<RecordingObserver>();
  agent.start_turn(input("slow", "ta"), a);
  TurnInput other = input("other", "tb");
  other.conversation = "c2";
  agent.start_turn(std::move(other), b);
  EXPECT_EQ(b->wait().status, TurnStatus::Ok);
  EXPECT_EQ(b->text(), "Other conversation, many words in this reply.");
  b_ended.set_value();
  expect_remembered_after_waiting(a->wait());
}

}  // namespace
}  // namespace sigil::agent
