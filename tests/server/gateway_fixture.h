// What the gateway's socket tests share (http_server_test, chat_completions_test, ws_test): a store in a
// temporary folder, the built-in handlers, an agent on a replay model, and the server once started.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sigil/actions/builtin_handlers.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/replay.h"
#include "sigil/server/http_server.h"
#include "store/store_test_support.h"

namespace sigil::server::testing {

class GatewayFixture : public ::testing::Test {
 protected:
  GatewayFixture() : registry_(catalog::Registry::builtin()) {
    store_ = store::testing::open_or_fail(dir_.file("sigil.db"));
  }

  ~GatewayFixture() override {
    server_.reset();
    agent_.reset();
  }

  // The built-in handlers with this configuration.
  void load_handlers(const actions::BuiltinConfig& config = {}) {
    auto handlers = actions::builtin_handlers(config);
    EXPECT_TRUE(handlers.ok());
    if (handlers.ok()) handlers_ = std::move(*handlers);
  }

  // A new agent (at most max_model_calls model calls a turn) on a replay model that plays these JSON lines
  // (one {match?, reply, ...} each) at tokens_per_second (0: at once), its tokens cut by `split`.
  void use_replay(const std::vector<std::string>& lines, double tokens_per_second, model::TokenSplit split,
                  int max_model_calls) {
    agent_.reset();
    const std::string path = dir_.file("replay-" + std::to_string(++models_) + ".jsonl");
    std::ofstream file(path);
    for (const std::string& line : lines) file << line << '\n';
    file.close();
    model::ReplayConfig config;
    config.path = path;
    config.tokens_per_second = tokens_per_second;
    config.split = split;
    client_ = model::make_replay_client(config);
    agent::AgentConfig agent_config;
    agent_config.max_model_calls = max_model_calls;
    agent_ = std::make_unique<agent::Agent>(registry_, handlers_, *store_, *client_, agent_config);
  }

  // True when the agent has no turn left within `limit`.
  bool idle_within(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (agent_->active_turns() != 0) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

  store::testing::TempDir dir_;
  catalog::Registry registry_;
  std::unique_ptr<store::Store> store_;
  exec::HandlerTable handlers_;
  std::unique_ptr<model::ModelClient> client_;
  std::unique_ptr<agent::Agent> agent_;
  std::unique_ptr<HttpServer> server_;
  int models_ = 0;
};

}  // namespace sigil::server::testing
