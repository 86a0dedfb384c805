// What a turn reads from a file store, counted in the read-only connection's read transactions
// (SqliteStore::read_transactions()): a model call reads the say mode, memory and history in one snapshot.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "agent/end_observer.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/replay.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_support.h"

namespace sigil::agent {
namespace {

TEST(TurnReads, AOneCallTurnReadsTheSayModeMemoryAndHistoryInOneReadTransaction) {
  store::testing::TempDir dir;
  std::unique_ptr<store::Store> store = store::testing::open_or_fail(dir.file("sigil.db"));
  ASSERT_TRUE(store);
  const store::Scope scope{"u1", "c1", store::MemoryScope::per_user};
  ASSERT_TRUE(store->remember(scope, "likes tea", store::testing::kT0).ok());  // memory to read
  model::ReplayConfig replay;
  replay.path = "replay";
  replay.text = R"({"reply":"Answer."})";
  replay.tokens_per_second = 0;
  std::unique_ptr<model::ModelClient> model = model::make_replay_client(replay);
  const catalog::Registry registry = catalog::Registry::builtin();
  exec::HandlerTable handlers;
  AgentConfig config;
  config.memory.enabled = true;
  Agent agent{registry, handlers, *store, *model, config};
  auto& sqlite = static_cast<store::sqlite::SqliteStore&>(*store);

  for (int turn = 0; turn < 3; ++turn) {
    const std::uint64_t before = sqlite.read_transactions();
    TurnInput in;
    in.user = "u1";
    in.conversation = "c1";
    in.text = "hi";
    in.turn_id = "web-" + std::to_string(turn);
    in.fresh_id = true;  // the web chat's: no look for an earlier run
    auto observer = std::make_shared<testing::EndObserver>();
    agent.start_turn(std::move(in), observer);
    EXPECT_EQ(observer->wait().status, TurnStatus::Ok);
    agent.wait_idle();
    // The say mode, the memory tier, facts, items and the history, together: 1, where one read
    // transaction each was 5.
    EXPECT_EQ(sqlite.read_transactions() - before, 1u) << "turn " << turn;
  }
}

}  // namespace
}  // namespace sigil::agent
