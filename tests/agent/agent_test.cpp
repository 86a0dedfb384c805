#include "sigil/agent/agent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "agent_fixture.h"
#include "sigil/actions/memory.h"
#include "sigil/actions/scheduler.h"

namespace sigil::agent {
namespace {

using namespace std::chrono_literals;
using exec::Delivery;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;
using testing::AgentTest;
using testing::RecordingObserver;

TEST_F(AgentTest, PlainReplyStreamsCleanTextAndLandsInHistory) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"Hello ", "there, ", "friend."}));
  auto client = openai(server);
  AgentConfig config;
  config.system_prompt_intro = "You are a test bot.";
  Agent agent(registry_, handlers_, *store_, *client, config);
  auto observer = std::make_shared<RecordingObserver>();
  EXPECT_EQ(agent.start_turn(input("hi"), observer), "t1");
  TurnSummary summary = observer->wait();
  agent.wait_idle();

  EXPECT_EQ(summary.status, TurnStatus::Ok);
  EXPECT_EQ(summary.turn_id, "t1");
  ASSERT_EQ(summary.calls.size(), 1u);
  EXPECT_TRUE(summary.diagnostics.empty());
  EXPECT_EQ(observer->text(), "Hello there, friend.");
  EXPECT_EQ(observer->calls(), std::vector<int>{1});
  EXPECT_EQ(observer->ends(), 1);

  ASSERT_EQ(history_column(&store::Message::role), (Strings{"user", "assistant"}));
  EXPECT_EQ(history_column(&store::Message::text), (Strings{"hi", "Hello there, friend."}));
  EXPECT_EQ(history_column(&store::Message::turn_id).back(), "t1");

  // The request: system message (intro + the action docs), the history, and the tools.
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& messages = requests[0].json.at("messages").as_array();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].at("role").as_string(), "system");
  const std::string system(messages[0].at("content").as_string());
  EXPECT_EQ(system.rfind("You are a test bot.", 0), 0u);
  EXPECT_NE(system.find("searchArchive"), std::string::npos);
  EXPECT_EQ(messages[1].at("content").as_string(), "hi");
  EXPECT_FALSE(requests[0].json.at("tools").as_array().empty());
}

// A server without tool support (llama.cpp without --jinja, some Ollama models) answers 400 to a request
// that offers tools. "auto": the same call runs again without them, the turn succeeds, and later turns do
// not offer them; the markup still works.
TEST_F(AgentTest, ToolsAutoRetriesWithoutToolsWhenTheServerRefusesThem) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::error(400, "registry.ollama.ai/library/gemma does not support tools"));
  server.enqueue(FakeResponse::text_stream({"Hello ", "<react emoji=\"thumbsup\"/>there."}));
  server.enqueue(FakeResponse::text_stream({"Again."}));
  auto client = openai(server);
  AgentConfig config;
  config.tools = ToolsMode::automatic;
  config.max_model_calls = 1;  // the repeated call does not count
  Agent agent(registry_, handlers_, *store_, *client, config);
  auto first = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hi"), first);
  const TurnSummary summary = first->wait();
  EXPECT_EQ(summary.status, TurnStatus::Ok);
  EXPECT_EQ(first->text(), "Hello there.");
  ASSERT_EQ(summary.diagnostics.size(), 1u);
  EXPECT_NE(summary.diagnostics[0].find("refused native tools"), std::string::npos) << summary.diagnostics[0];
  auto second = std::make_shared<RecordingObserver>();
  agent.start_turn(input("again", "t2"), second);
  const TurnSummary later = second->wait();
  EXPECT_EQ(later.status, TurnStatus::Ok);
  EXPECT_TRUE(later.diagnostics.empty());  // said once
  agent.wait_idle();

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(requests[0].json.as_object().contains("tools"));
  EXPECT_FALSE(requests[1].json.as_object().contains("tools"));
  EXPECT_FALSE(requests[2].json.as_object().contains("tools"));
}

// "on": the refusal fails the turn, and the diagnostic says which setting to change.
TEST_F(AgentTest, ToolsOnFailsClearlyWhenTheServerRefusesThem) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::error(400, "tools param requires --jinja flag"));
  auto client = openai(server);
  AgentConfig config;
  config.tools = ToolsMode::on;
  Agent agent(registry_, handlers_, *store_, *client, config);
  const auto [summary, observer] = run_turn(agent, input("hi"));
  EXPECT_EQ(summary.status, TurnStatus::ModelError);
  ASSERT_FALSE(summary.diagnostics.empty());
  EXPECT_NE(summary.diagnostics[0].find("HTTP 400"), std::string::npos) << summary.diagnostics[0];
  EXPECT_NE(summary.diagnostics[0].find("[model] tools"), std::string::npos) << summary.diagnostics[0];
  EXPECT_EQ(server.request_count(), 1u);
}

// "auto" does not mistake another 400 for a refusal of tools; "off" never offers them.
TEST_F(AgentTest, ToolsAutoLeavesOtherErrorsAloneAndOffSendsNone) {
  {
    FakeOpenAiServer server;
    server.enqueue(FakeResponse::error(400, "context length exceeded"));
    auto client = openai(server);
    Agent agent(registry_, handlers_, *store_, *client, AgentConfig{});
    auto observer = std::make_shared<RecordingObserver>();
    agent.start_turn(input("hi"), observer);
    EXPECT_EQ(observer->wait().status, TurnStatus::ModelError);
    agent.wait_idle();
    EXPECT_EQ(server.request_count(), 1u);
  }
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"Fine."}));
  auto client = openai(server);
  AgentConfig config;
  config.tools = ToolsMode::off;
  Agent agent(registry_, handlers_, *store_, *client, config);
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hi", "t9"), observer);
  EXPECT_EQ(observer->wait().status, TurnStatus::Ok);
  agent.wait_idle();
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_FALSE(server.requests()[0].json.as_object().contains("tools"));
}

TEST_F(AgentTest, ResultsGoBackToTheModelAndTheSecondReplyIsDelivered) {
  FakeOpenAiServer server;
  enqueue_tea_search(server, "Let me look.", {"You wrote about ", "green tea."});
  auto client = openai(server);
  Agent agent(registry_, handlers_, *store_, *client, {});
  const auto [summary, observer] = run_turn(agent, input("what did I say about tea?"));

  EXPECT_EQ(summary.status, TurnStatus::Ok);
  ASSERT_EQ(summary.calls.size(), 2u);
  EXPECT_EQ(summary.calls[0].exec_turn_id, "t1");
  EXPECT_EQ(summary.calls[1].exec_turn_id, "t1#2");
  EXPECT_EQ(summary.calls[0].model_message, "[1] searchArchive: ok: 1 hit for tea: green tea notes");
  EXPECT_TRUE(summary.calls[1].model_message.empty());
  EXPECT_EQ(searches_.load(), 1);
  EXPECT_EQ(observer->calls(), (std::vector<int>{1, 2}));
  const std::string text = observer->text();
  EXPECT_NE(text.find("Let me look."), std::string::npos);
  EXPECT_NE(text.find("You wrote about green tea."), std::string::npos);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string second = boost::json::serialize(requests[1].json.at("messages"));
  EXPECT_NE(second.find("[1] searchArchive: ok: 1 hit for tea: green tea notes"), std::string::npos)
      << second;

  auto h = history();
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[1].role, "assistant");
  // Stored as what it is (no person wrote it), sent to the model as the user's next message.
  EXPECT_EQ(h[2].role, store::kResultsRole);
  EXPECT_EQ(h[2].text, "[1] searchArchive: ok: 1 hit for tea: green tea notes");
  const auto& sent = requests[1].json.at("messages").as_array();
  EXPECT_EQ(sent.back().at("role").as_string(), "user");
  EXPECT_EQ(sent.back().at("content").as_string(), h[2].text);
  EXPECT_EQ(h[3].text, "You wrote about green tea.");
}

TEST_F(AgentTest, LoopCapEndsWithLoopLimit) {
  auto client = replay({R"({"reply": "Again <searchArchive>{\"query\":\"tea\"}</searchArchive>"})"});
  AgentConfig config;
  config.max_model_calls = 3;
  Agent agent(registry_, handlers_, *store_, *client, config);
  const auto [summary, observer] = run_turn(agent, input("loop"));

  EXPECT_EQ(summary.status, TurnStatus::LoopLimit);
  EXPECT_EQ(summary.calls.size(), 3u);
  EXPECT_EQ(observer->calls(), (std::vector<int>{1, 2, 3}));
  // Each call has its own exactly-once turn id, so the same directive runs once per call.
  EXPECT_EQ(searches_.load(), 3);
  ASSERT_EQ(summary.diagnostics.size(), 1u);
  EXPECT_EQ(summary.diagnostics[0].rfind("loop-limit: 3 model calls", 0), 0u) << summary.diagnostics[0];
  EXPECT_EQ(observer->ends(), 1);
}

TEST_F(AgentTest, ModelErrorMidStreamKeepsTextAndEndsTheTurn) {
  FakeOpenAiServer server;
  auto response = FakeResponse::text_stream({"Hello ", "there, ", "this never ends"});
  response.close_after_bytes = response.body.find("this never");
  server.enqueue(response);
  auto client = openai(server);
  Agent agent(registry_, handlers_, *store_, *client, {});
  const auto [summary, observer] = run_turn(agent, input("hi"));

  EXPECT_EQ(summary.status, TurnStatus::ModelError);
  ASSERT_EQ(summary.calls.size(), 1u);
  EXPECT_EQ(summary.calls[0].finish, model::FinishReason::error);
  ASSERT_EQ(summary.diagnostics.size(), 1u);
  EXPECT_EQ(summary.diagnostics[0].rfind("model-error: ", 0), 0u);
  EXPECT_EQ(observer->text().rfind("Hello there,", 0), 0u) << observer->text();
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(AgentTest, ModelErrorFromReplay) {
  auto client = replay({R"({"reply": "Half an answer", "error": "connection reset"})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hi"), observer);
  TurnSummary summary = observer->wait();
  EXPECT_EQ(summary.status, TurnStatus::ModelError);
  EXPECT_EQ(observer->text(), "Half an answer");
  ASSERT_EQ(summary.diagnostics.size(), 1u);
  EXPECT_EQ(summary.diagnostics[0], "model-error: connection reset");
}

TEST_F(AgentTest, CutOffReplyDoesNotRunAnUnclosedDirective) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"Looking: ", "<searchArchive>{\"query\":\"tea\"}"}, "length"));
  server.enqueue(FakeResponse::text_stream({"Sorry, shorter now."}));
  auto client = openai(server);
  Agent agent(registry_, handlers_, *store_, *client, {});
  const auto [summary, observer] = run_turn(agent, input("hi"));

  // Not run; the model learns its directive was cut off and answers again.
  EXPECT_EQ(searches_.load(), 0);
  EXPECT_EQ(summary.status, TurnStatus::Ok);
  ASSERT_EQ(summary.calls.size(), 2u);
  EXPECT_EQ(summary.calls[0].finish, model::FinishReason::length);
  EXPECT_EQ(summary.calls[0].model_message,
            "[1] searchArchive: refused: cut off: the reply ended before this directive was complete");
  EXPECT_EQ(observer->text().find("searchArchive"), std::string::npos) << observer->text();
  EXPECT_NE(observer->text().find("Sorry, shorter now."), std::string::npos) << observer->text();
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_F(AgentTest, ReplayLengthAlsoLeavesTheDirectiveUnrun) {
  auto client = replay(
      {R"({"match": "hello there", "reply": "Looking: <searchArchive>{\"query\":\"tea\"}", "finish": "length"})",
       R"({"match": "cut off", "reply": "Shorter."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hello there"), observer);
  TurnSummary summary = observer->wait();
  ASSERT_EQ(summary.calls.size(), 2u);
  EXPECT_EQ(summary.calls[0].finish, model::FinishReason::length);
  EXPECT_EQ(searches_.load(), 0);
  // Each reply's trailing space is tidied; on_model_call marks where the second reply starts.
  EXPECT_EQ(observer->text(), "Looking:\n\nShorter.");
}

TEST_F(AgentTest, ReactionComesBeforeTheTextAfterIt) {
  auto client = replay({R"({"reply": "Nice one! <react emoji=\"thumbsup\"/> Glad it worked."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  const auto [summary, observer] = run_turn(agent, input("it works"));

  EXPECT_EQ(summary.status, TurnStatus::Ok);
  ASSERT_EQ(summary.calls.size(), 1u);
  auto ops = observer->ops();
  int reaction = -1, after = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].op == Delivery::Op::Reaction) reaction = static_cast<int>(i);
    if (ops[i].op == Delivery::Op::Text && ops[i].text.find("Glad") != std::string::npos)
      after = static_cast<int>(i);
    if (ops[i].op == Delivery::Op::Text) {
      EXPECT_EQ(ops[i].text.find('<'), std::string::npos);
    }
  }
  ASSERT_GE(reaction, 0);
  EXPECT_EQ(ops[static_cast<std::size_t>(reaction)].emoji, "thumbsup");
  ASSERT_GE(after, 0);
  EXPECT_LT(reaction, after);
  EXPECT_EQ(observer->text().find("Glad it worked."),
            observer->text().size() - std::string("Glad it worked.").size());
}

TEST_F(AgentTest, NativeToolCallRunsTheSameHandler) {
  auto client = replay({
      R"({"match": "find tea", "reply": "", "tool_calls": [{"id": "c1", "name": "searchArchive", "arguments": {"query": "tea"}}]})",
      R"({"match": "searchArchive: ok", "reply": "Found it."})",
      R"({"match": "bad tool", "reply": "", "tool_calls": [{"id": "c2", "name": "noSuchTool", "arguments": {}}]})",
      R"({"match": "no such tool", "reply": "Sorry."})",
  });
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("find tea"), observer);
  TurnSummary summary = observer->wait();
  EXPECT_EQ(summary.status, TurnStatus::Ok);
  ASSERT_EQ(summary.calls.size(), 2u);
  EXPECT_EQ(summary.calls[0].tool_calls, std::vector<std::string>{"searchArchive"});
  EXPECT_EQ(summary.calls[0].model_message, "[1] searchArchive: ok: 1 hit for tea: green tea notes");
  EXPECT_EQ(searches_.load(), 1);
  EXPECT_EQ(observer->text(), "Found it.");

  auto observer2 = std::make_shared<RecordingObserver>();
  agent.start_turn(input("bad tool", "t2"), observer2);
  TurnSummary bad = observer2->wait();
  ASSERT_EQ(bad.calls.size(), 2u);
  EXPECT_NE(bad.calls[0].model_message.find("tool noSuchTool: error: no such tool"), std::string::npos)
      << bad.calls[0].model_message;
  EXPECT_EQ(observer2->text(), "Sorry.");
}

// A replay line whose reply makes `count` native searchArchive calls (queries q1, q2, ...).
std::string tool_calls_line(const std::string& match, int count, const std::string& reply = "") {
  std::string calls;
  for (int i = 1; i <= count; ++i) {
    if (i > 1) calls += ", ";
    calls += R"({"id": "c)" + std::to_string(i) + R"(", "name": "searchArchive", "arguments": {"query": "q)" +
             std::to_string(i) + R"("}})";
  }
  return R"({"match": ")" + match + R"(", "reply": ")" + reply + R"(", "tool_calls": [)" + calls + "]}";
}

// 12.5: the per-reply limit (32) covers native tool calls, with the parser's own reason.
TEST_F(AgentTest, NativeToolCallsPastThePerReplyLimitAreRefused) {
  auto client =
      replay({tool_calls_line("flood", 64), R"({"match": "over the per-reply limit", "reply": "Done."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("flood"), observer);
  TurnSummary summary = observer->wait();
  EXPECT_EQ(summary.status, TurnStatus::Ok);
  EXPECT_EQ(searches_.load(), 32);
  ASSERT_EQ(summary.calls.size(), 2u);
  EXPECT_EQ(summary.calls[0].tool_calls.size(), 64u);
  const auto& results = summary.calls[0].report.results;
  ASSERT_EQ(results.size(), 64u);
  for (std::size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE("tool call " + std::to_string(i + 1));
    if (i < 32) {
      EXPECT_EQ(results[i].status, exec::ResultStatus::Ok) << results[i].message;
      EXPECT_EQ(results[i].message, "1 hit for q" + std::to_string(i + 1) + ": green tea notes");
    } else {
      EXPECT_EQ(results[i].status, exec::ResultStatus::Refused);
      EXPECT_EQ(results[i].message, "searchArchive: over the per-reply limit");
    }
  }
  const std::string& message = summary.calls[0].model_message;
  EXPECT_NE(message.find("[32] searchArchive: ok: 1 hit for q32"), std::string::npos) << message;
  EXPECT_NE(message.find("[33] searchArchive: refused: over the per-reply limit\n"), std::string::npos)
      << message;
  EXPECT_NE(message.find("[64] searchArchive: refused: over the per-reply limit"), std::string::npos)
      << message;
  EXPECT_EQ(observer->text(), "Done.");
}

// Inline directives and tool calls share one count, and an inline one past it is refused in the same words.
TEST_F(AgentTest, InlineDirectivesAndToolCallsShareThePerReplyCount) {
  std::string inline_part;
  for (int i = 1; i <= 20; ++i) inline_part += "[SEARCH_EPISODIC:inline" + std::to_string(i) + "] ";
  auto client =
      replay({tool_calls_line("mixed", 20, inline_part), R"({"match": "over the per-reply", "reply": "Ok."})",
              R"({"match": "inline flood", "reply": ")" + inline_part + inline_part + R"("})",
              R"({"match": "per-reply limit", "reply": "Ok."})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("mixed"), observer);
  TurnSummary summary = observer->wait();
  ASSERT_EQ(summary.calls.size(), 2u);
  EXPECT_EQ(searches_.load(), 32);
  const auto& results = summary.calls[0].report.results;
  ASSERT_EQ(results.size(), 40u);
  EXPECT_EQ(results[19].message, "1 hit for inline20: green tea notes");  // 20 inline, in reply order
  EXPECT_EQ(results[31].message, "1 hit for q12: green tea notes");       // then 12 tool calls
  for (std::size_t i = 32; i < 40; ++i) {
    EXPECT_EQ(results[i].status, exec::ResultStatus::Refused);
    EXPECT_EQ(results[i].message, "searchArchive: over the per-reply limit");
  }

  // 40 inline directives: the parser's own refusal reads the same.
  searches_ = 0;
  auto observer2 = std::make_shared<RecordingObserver>();
  agent.start_turn(input("inline flood", "t2"), observer2);
  TurnSummary inline_only = observer2->wait();
  ASSERT_FALSE(inline_only.calls.empty());
  ASSERT_EQ(inline_only.calls[0].report.results.size(), 40u);
  EXPECT_EQ(searches_.load(), 32);
  EXPECT_EQ(inline_only.calls[0].report.results[32].status, exec::ResultStatus::Refused);
  EXPECT_EQ(inline_only.calls[0].report.results[32].message, results[32].message);
}

// docs/security.md "Results to the model": 5,000 results (32 run, the rest refused, plus unknown tools)
// become one bounded message, in the summary and in the stored history alike.
TEST_F(AgentTest, TheResultsMessageIsBounded) {
  std::string flood;
  for (int i = 0; i < 5000; ++i) flood += "[SEARCH_EPISODIC:x]";
  auto client = replay({
      R"({"match": "flood", "reply": "Searching. )" + flood +
          R"(", "tool_calls": [{"id": "u1", "name": "noSuchTool", "arguments": {}}]})",
      R"({"match": "left out", "reply": "Fine."})",
  });
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("flood"), observer);
  TurnSummary summary = observer->wait();
  ASSERT_EQ(summary.calls.size(), 2u);
  EXPECT_EQ(summary.calls[0].report.results.size(), 5000u);
  const std::string& message = summary.calls[0].model_message;
  EXPECT_LE(message.size(), 16u * 1024) << "the results message is not bounded";
  EXPECT_GT(message.size(), 15u * 1024) << "the bound wastes room";
  EXPECT_EQ(message.rfind("[1] searchArchive: ok:", 0), 0u) << message.substr(0, 200);
  const std::size_t last = message.rfind('\n');
  ASSERT_NE(last, std::string::npos);
  const std::string tail = message.substr(last + 1);
  const std::regex note(R"(\[(\d+) more results left out: the results message is limited to 16384 bytes\])");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(tail, m, note)) << tail;
  const auto kept = static_cast<std::size_t>(std::count(message.begin(), message.end(), '\n'));
  EXPECT_EQ(kept + std::stoul(m[1].str()), 5001u)
      << "5,000 results and one tool error, each shown or counted";
  auto h = history();
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[2].text, message);
  EXPECT_EQ(observer->text().substr(observer->text().size() - 5), "Fine.");
}

TEST_F(AgentTest, ScheduledTaskFiresAsATurn) {
  // The model reads the task named before its message; the history keeps the origin as data.
  auto client =
      replay({R"({"match": "[scheduled task task-3] remind me about tea", "reply": "Time for tea!"})",
              R"({"reply": "the model did not see which task this is"})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  store::ScheduledTask task;
  task.scope = {"u1", "c1", store::MemoryScope::per_user};
  task.id = "task-3";
  task.message = "remind me about tea";
  auto observer = std::make_shared<RecordingObserver>();
  EXPECT_TRUE(agent.fire_task(task, actions::Scheduler::turn_id(task), observer));
  TurnSummary summary = observer->wait();
  agent.wait_idle();
  EXPECT_EQ(summary.turn_id, "task:task-3");
  EXPECT_EQ(observer->text(), "Time for tea!");
  ASSERT_EQ(history_column(&store::Message::task_id), (Strings{"task-3", ""}));
  const auto h = history();
  EXPECT_EQ(h.front().text, "remind me about tea");
  EXPECT_EQ(h.front().turn_id, "task:task-3");
}

TEST_F(AgentTest, ALateSentinelTakesTheReplyBackAndItIsNotStoredAsSaid) {
  auto client = replay({R"({"reply": "Sure thing.\nNO_REPLY"})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  const auto [summary, observer] = run_turn(agent, input("thanks"));
  EXPECT_EQ(observer->silences(), std::vector<bool>{true});
  ASSERT_EQ(summary.calls.size(), 1u);
  EXPECT_TRUE(summary.calls[0].report.silent);
  auto h = history();
  ASSERT_EQ(h.size(), 1u) << "only the user's message: the silent reply was never said";
  EXPECT_EQ(h[0].text, "thanks");
}

TEST_F(AgentTest, SayModeIsAConversationSettingThatSurvivesTheAgent) {
  const std::string reply = R"({"reply": "Let me think. <say>Hi!</say> (hidden) <say>Tea is ready.</say>"})";
  {
    auto client = replay({reply});
    Agent agent(registry_, handlers_, *store_, *client, {});
    EXPECT_FALSE(*agent.say_mode("u1", "c1"));  // never chosen: AgentConfig's default
    ASSERT_TRUE(agent.set_say_mode("u1", "c1", true).ok());
    EXPECT_TRUE(*agent.say_mode("u1", "c1"));
    EXPECT_FALSE(*agent.say_mode("u1", "c2"));  // per conversation
    EXPECT_FALSE(*agent.say_mode("u2", "c1"));  // and per user
  }
  auto client = replay({reply, reply});
  Agent agent(registry_, handlers_, *store_, *client, {});  // a new agent (a restart) reads it back
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hello"), observer);
  TurnSummary summary = observer->wait();
  EXPECT_TRUE(summary.say_mode);
  // Each say block is its own message; the joint is a blank line for observers that only join text.
  EXPECT_EQ(observer->text(), "Hi!|\n\nTea is ready.|");
  auto h = history();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[1].text, "Hi!\n\nTea is ready.");  // what the user was shown

  // The same conversation with say mode off again: the tags are removable markup, all text shows.
  ASSERT_TRUE(agent.set_say_mode("u1", "c1", false).ok());
  auto second = std::make_shared<RecordingObserver>();
  agent.start_turn(input("again", "t2"), second);
  EXPECT_FALSE(second->wait().say_mode);
  agent.wait_idle();
  EXPECT_EQ(second->text(), "Let me think. Hi! (hidden) Tea is ready.");
}

TEST_F(AgentTest, SayModeTeachesSayBlocksAndATurnMayOverrideIt) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"<say>One</say>"}));
  server.enqueue(FakeResponse::text_stream({"<say>Two</say>"}));
  auto client = openai(server);
  Agent agent(registry_, handlers_, *store_, *client, {});
  EXPECT_EQ(agent.system_message(false).find("<say>"), std::string::npos);
  EXPECT_NE(agent.system_message(true).find("<say>"), std::string::npos);
  ASSERT_TRUE(agent.set_say_mode("u1", "c1", true).ok());
  auto first = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hi"), first);
  first->wait();
  TurnInput off = input("hi again", "t2");
  off.say_mode = false;  // this turn only
  auto second = std::make_shared<RecordingObserver>();
  agent.start_turn(std::move(off), second);
  EXPECT_FALSE(second->wait().say_mode);
  agent.wait_idle();
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string say_system(requests[0].json.at("messages").at(0).at("content").as_string());
  const std::string plain_system(requests[1].json.at("messages").at(0).at("content").as_string());
  EXPECT_EQ(say_system, agent.system_message(true));
  EXPECT_EQ(plain_system, agent.system_message(false));
  EXPECT_EQ(first->text(), "One|");
  EXPECT_EQ(second->text(), "Two");
  EXPECT_TRUE(*agent.say_mode("u1", "c1"));  // the override changed nothing stored
}

// Memory the model sees (issue 13.1): a fact remembered in one turn is in the next model request; an
// expired item never is; one user's memory never reaches another's request.
TEST_F(AgentTest, ARememberedFactIsInTheNextRequestAndNoOneElses) {
  actions::add_memory_handlers(handlers_);
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"Noted. [REMEMBER:drinks oolong from Alishan]"}));
  server.enqueue(FakeResponse::text_stream({"Green tea, then."}));
  server.enqueue(FakeResponse::text_stream({"Hello Bob."}));
  auto client = openai(server);
  AgentConfig config;
  store::TimePoint now = store::Clock::now();
  config.exec.now = [&now] { return now; };
  ASSERT_TRUE(store_
                  ->set_item({"u1", "c1", store::MemoryScope::per_user}, "flight", R"("TP 123 at 9:40")",
                             now + 1h, now)
                  .ok());
  Agent agent(registry_, handlers_, *store_, *client, config);

  auto first = std::make_shared<RecordingObserver>();
  agent.start_turn(input("remember that I drink oolong from Alishan", "t1"), first);
  EXPECT_EQ(first->wait().status, TurnStatus::Ok);
  agent.wait_idle();
  EXPECT_EQ(first->text(), "Noted.");

  now += 2h;  // the flight item has expired
  auto second = std::make_shared<RecordingObserver>();
  agent.start_turn(input("what should I drink?", "t2"), second);
  EXPECT_EQ(second->wait().status, TurnStatus::Ok);
  agent.wait_idle();

  TurnInput bob = input("hi", "t3");
  bob.user = "bob";
  auto third = std::make_shared<RecordingObserver>();
  agent.start_turn(bob, third);
  EXPECT_EQ(third->wait().status, TurnStatus::Ok);
  agent.wait_idle();

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  auto system = [&](std::size_t i) {
    return std::string(requests[i].json.at("messages").as_array().at(0).at("content").as_string());
  };
  EXPECT_EQ(system(0).find("Alishan"), std::string::npos);
  EXPECT_NE(system(0).find("- flight: TP 123 at 9:40 (until "), std::string::npos) << system(0);
  EXPECT_NE(system(1).find("## Memory"), std::string::npos) << system(1);
  EXPECT_NE(system(1).find("- drinks oolong from Alishan\n"), std::string::npos) << system(1);
  EXPECT_EQ(system(1).find("TP 123"), std::string::npos) << system(1);
  EXPECT_EQ(system(2).find("Alishan"), std::string::npos) << system(2);
  EXPECT_EQ(system(2).find("## Memory"), std::string::npos) << system(2);
}

}  // namespace
}  // namespace sigil::agent