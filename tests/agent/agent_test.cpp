#include "sigil/agent/agent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <fstream>
#include <future>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "sigil/actions/memory.h"
#include "sigil/actions/scheduler.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/openai.h"
#include "sigil/model/replay.h"
#include "store/store_test_support.h"
#include "support/fake_openai_server.h"

namespace sigil::agent {
namespace {

using namespace std::chrono_literals;
using exec::Delivery;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;
using store::testing::TempDir;

// Records what a turn showed, in order; consecutive text pieces merge.
class RecordingObserver final : public TurnObserver {
 public:
  void on_text(std::string_view text) override {
    std::lock_guard lock(mu_);
    pieces_.emplace_back(text);
    if (!ops_.empty() && ops_.back().op == Delivery::Op::Text && merge_) {
      ops_.back().text.append(text);
    } else {
      Delivery d;
      d.text = std::string(text);
      ops_.push_back(std::move(d));
    }
    merge_ = true;
  }
  void on_delivery(const Delivery& delivery) override {
    std::lock_guard lock(mu_);
    ops_.push_back(delivery);
    merge_ = false;
  }
  void on_model_call(int n) override {
    std::lock_guard lock(mu_);
    calls_.push_back(n);
  }
  void on_silence(bool late) override {
    std::lock_guard lock(mu_);
    silences_.push_back(late);
  }
  void on_message_end() override {
    std::lock_guard lock(mu_);
    pieces_.emplace_back("|");  // marks where a say block ended
    merge_ = false;
  }
  std::vector<bool> silences() const {
    std::lock_guard lock(mu_);
    return silences_;
  }
  void on_turn_end(const TurnSummary& summary) override {
    ++ends_;
    done_.set_value(summary);
  }

  TurnSummary wait() {
    auto future = done_.get_future();
    if (future.wait_for(20s) != std::future_status::ready) {
      ADD_FAILURE() << "the turn did not end";
      return {};
    }
    return future.get();
  }
  std::string text() const {
    std::lock_guard lock(mu_);
    std::string all;
    for (const auto& p : pieces_) all += p;
    return all;
  }
  std::vector<Delivery> ops() const {
    std::lock_guard lock(mu_);
    return ops_;
  }
  std::vector<int> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  int ends() const { return ends_; }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> pieces_;
  std::vector<Delivery> ops_;
  std::vector<int> calls_;
  std::vector<bool> silences_;
  bool merge_ = false;
  std::atomic<int> ends_{0};
  std::promise<TurnSummary> done_;
};

class AgentTest : public ::testing::Test {
 protected:
  AgentTest() : registry_(catalog::Registry::builtin()) {
    store_ = store::testing::open_or_fail(dir_.file("sigil.db"));
    handlers_.add("searchArchive", [this](const exec::Directive& d, exec::ActionContext&) {
      ++searches_;
      return exec::HandlerResult::ok("1 hit for " + std::string(d.args.at("query").as_string()) +
                                     ": green tea notes");
    });
    handlers_.add("react", [](const exec::Directive& d, exec::ActionContext&) {
      exec::HandlerResult r = exec::HandlerResult::ok("reacted");
      Delivery reaction;
      reaction.op = Delivery::Op::Reaction;
      reaction.emoji = std::string(d.args.at("emoji").as_string());
      r.deliveries.push_back(std::move(reaction));
      return r;
    });
  }

  std::unique_ptr<model::ModelClient> openai(const FakeOpenAiServer& server) {
    return model::make_openai_client(openai_config_for(server));
  }

  std::unique_ptr<model::ModelClient> replay(const std::vector<std::string>& lines) {
    const std::string path = dir_.file("replay-" + std::to_string(replays_++) + ".jsonl");
    std::ofstream file(path);
    for (const auto& line : lines) file << line << '\n';
    file.close();
    model::ReplayConfig config;
    config.path = path;
    config.tokens_per_second = 0;
    return model::make_replay_client(config);
  }

  std::vector<store::Message> history(const std::string& conversation = "c1") {
    auto messages = store_->recent_messages({"u1", conversation, store::MemoryScope::per_user}, 50);
    EXPECT_TRUE(messages.ok());
    return messages.ok() ? *messages : std::vector<store::Message>{};
  }

  static TurnInput input(std::string text, std::string turn = "t1") {
    TurnInput in;
    in.user = "u1";
    in.conversation = "c1";
    in.text = std::move(text);
    in.turn_id = std::move(turn);
    return in;
  }

  TempDir dir_;
  catalog::Registry registry_;
  std::unique_ptr<store::Store> store_;
  exec::HandlerTable handlers_;
  std::atomic<int> searches_{0};
  int replays_ = 0;
};

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

  auto h = history();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].role, "user");
  EXPECT_EQ(h[0].text, "hi");
  EXPECT_EQ(h[1].role, "assistant");
  EXPECT_EQ(h[1].text, "Hello there, friend.");
  EXPECT_EQ(h[1].turn_id, "t1");

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
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hi"), observer);
  const TurnSummary summary = observer->wait();
  agent.wait_idle();
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
  server.enqueue(
      FakeResponse::text_stream({"Let me look. <searchArch", "ive>{\"query\":\"tea\"}</searchArchive>"}));
  server.enqueue(FakeResponse::text_stream({"You wrote about ", "green tea."}));
  auto client = openai(server);
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("what did I say about tea?"), observer);
  TurnSummary summary = observer->wait();
  agent.wait_idle();

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
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("loop"), observer);
  TurnSummary summary = observer->wait();
  agent.wait_idle();

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
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hi"), observer);
  TurnSummary summary = observer->wait();
  agent.wait_idle();

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
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("hi"), observer);
  TurnSummary summary = observer->wait();
  agent.wait_idle();

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
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("it works"), observer);
  TurnSummary summary = observer->wait();
  agent.wait_idle();

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
  auto h = history();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].text, "remind me about tea");
  EXPECT_EQ(h[0].task_id, "task-3");
  EXPECT_EQ(h[0].turn_id, "task:task-3");
  EXPECT_EQ(h[1].task_id, "");
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
  model::ReplayConfig config;
  config.path = dir_.file("slow.jsonl");
  std::ofstream(config.path) << R"({"reply": "one two three four five six seven eight nine ten"})" << '\n';
  config.tokens_per_second = 5;
  config.split = model::TokenSplit::words;
  auto client = model::make_replay_client(config);
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
  model::ReplayConfig config;
  config.path = dir_.file("slow.jsonl");
  std::ofstream(config.path) << R"({"reply": "one two three four five six seven eight nine ten"})" << '\n';
  config.tokens_per_second = 5;
  auto client = model::make_replay_client(config);
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
  auto h = history();
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[0].text, "first");
  EXPECT_EQ(h[1].text, "Answer one.");
  EXPECT_EQ(h[2].text, "second");
  EXPECT_EQ(h[3].text, "Answer two.");
}

TEST_F(AgentTest, StatelessTurnUsesItsMessagesAndWritesNoHistory) {
  FakeOpenAiServer server;
  server.enqueue(
      FakeResponse::text_stream({"Checking. <searchArch", "ive>{\"query\":\"tea\"}</searchArchive>"}));
  server.enqueue(FakeResponse::text_stream({"Found ", "your notes."}));
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
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(std::move(in), observer);
  TurnSummary summary = observer->wait();
  agent.wait_idle();

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
  handlers_.add("remember", [second_done](const exec::Directive&, exec::ActionContext&) {
    if (second_done.wait_for(20s) != std::future_status::ready)
      return exec::HandlerResult::error("the other turn never ended");
    return exec::HandlerResult::ok("remembered");
  });
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
  TurnSummary summary = slow->wait();
  ASSERT_EQ(summary.calls.size(), 1u);
  ASSERT_EQ(summary.calls[0].report.results.size(), 1u);
  EXPECT_EQ(summary.calls[0].report.results[0].message, "remembered");
}

TEST_F(AgentTest, ASlowHandlerDoesNotStallOtherConversationsOnTheClientThread) {
  // The replay client drives every call from ONE timer thread. Conversation A's handler blocks until
  // conversation B's turn has ended; if A's call ended (executor.finish()) on that thread, B's tokens could
  // not be delivered until A's handler gave up.
  std::promise<void> b_ended;
  std::shared_future<void> b_done = b_ended.get_future().share();
  handlers_.add("remember", [b_done](const exec::Directive&, exec::ActionContext&) {
    if (b_done.wait_for(20s) != std::future_status::ready)
      return exec::HandlerResult::error("conversation b never ended");
    return exec::HandlerResult::ok("remembered");
  });
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
  TurnSummary summary = a->wait();
  ASSERT_EQ(summary.calls.size(), 1u);
  ASSERT_EQ(summary.calls[0].report.results.size(), 1u);
  EXPECT_EQ(summary.calls[0].report.results[0].message, "remembered");
}

TEST_F(AgentTest, ALateSentinelTakesTheReplyBackAndItIsNotStoredAsSaid) {
  auto client = replay({R"({"reply": "Sure thing.\nNO_REPLY"})"});
  Agent agent(registry_, handlers_, *store_, *client, {});
  auto observer = std::make_shared<RecordingObserver>();
  agent.start_turn(input("thanks"), observer);
  TurnSummary summary = observer->wait();
  agent.wait_idle();
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
