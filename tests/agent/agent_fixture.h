// What the agent tests share: an observer that records what a turn showed, and a fixture with a store, a
// registry, two handlers (searchArchive answers a fixed hit, react delivers a reaction) and model clients
// (the fake OpenAI server or a replay script).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/openai.h"
#include "sigil/model/replay.h"
#include "store/store_test_support.h"
#include "support/fake_openai_server.h"

namespace sigil::agent::testing {

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
    if (future.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
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

  // Two scripted replies: `lead` and a searchArchive for "tea" split inside its tag name (as a stream may
  // split it), then `answer`, the reply to its results.
  static void enqueue_tea_search(FakeOpenAiServer& server, const std::string& lead,
                                 const std::vector<std::string>& answer) {
    server.enqueue(
        FakeResponse::text_stream({lead + " <searchArch", "ive>{\"query\":\"tea\"}</searchArchive>"}));
    server.enqueue(FakeResponse::text_stream(answer));
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

  // Runs one turn on `agent` to its end and waits until the agent is idle: its summary, and what it showed.
  struct Ran {
    TurnSummary summary;
    std::shared_ptr<RecordingObserver> observer;
  };
  static Ran run_turn(Agent& agent, TurnInput in) {
    Ran ran{{}, std::make_shared<RecordingObserver>()};
    agent.start_turn(std::move(in), ran.observer);
    ran.summary = ran.observer->wait();
    agent.wait_idle();
    return ran;
  }

  // One field of every stored message of c1, oldest first: a history checked field by field.
  std::vector<std::string> history_column(std::string store::Message::*field) {
    std::vector<std::string> column;
    for (const store::Message& m : history()) column.push_back(m.*field);
    return column;
  }
  using Strings = std::vector<std::string>;

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

}  // namespace sigil::agent::testing
