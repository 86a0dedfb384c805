// The server's open turns, without sockets (server/turn_registry.h).
#include "server/turn_registry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

namespace sigil::server {
namespace {

using namespace std::chrono_literals;

TEST(TurnRegistryTest, IdsAreRandomAndShaped) {
  TurnRegistry turns;
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    const std::string id = turns.new_id();
    ASSERT_EQ(id.size(), 20u) << id;
    EXPECT_EQ(id.rfind("web-", 0), 0u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 4), std::string::npos) << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 100u);
  // Another registry (a restarted server) does not start where this one did.
  EXPECT_EQ(ids.count(TurnRegistry().new_id()), 0u);
}

TEST(TurnRegistryTest, OpenOwnsCloseAndCount) {
  TurnRegistry turns;
  EXPECT_TRUE(turns.open("t1", "u", "c"));
  EXPECT_TRUE(turns.owns("t1", "u", "c"));
  EXPECT_FALSE(turns.owns("t1", "u", "other"));
  EXPECT_FALSE(turns.owns("t1", "other", "c"));
  EXPECT_FALSE(turns.owns("t2", "u", "c"));
  EXPECT_TRUE(turns.running("t1"));
  turns.closed("t1");
  EXPECT_FALSE(turns.running("t1"));
  EXPECT_FALSE(turns.owns("t1", "u", "c"));
  turns.closed("unknown");  // harmless
  EXPECT_EQ(turns.opened_total(), 1u);
}

TEST(TurnRegistryTest, AnAnsweredTurnIsNotRunningAndItsRetryClosesSeparately) {
  TurnRegistry turns;
  ASSERT_TRUE(turns.open("key", "u", "c"));
  turns.answered("key");
  EXPECT_FALSE(turns.running("key"));  // a retry may start now
  ASSERT_TRUE(turns.open("key", "u", "c"));
  EXPECT_TRUE(turns.running("key"));
  EXPECT_EQ(turns.open_ids().size(), 2u);
  // The first request's turn closes: the answered entry goes, the retry still runs.
  turns.closed("key");
  EXPECT_TRUE(turns.running("key"));
  turns.answered("key");
  turns.closed("key");
  EXPECT_TRUE(turns.open_ids().empty());
  EXPECT_EQ(turns.opened_total(), 2u);
}

TEST(TurnRegistryTest, StopRefusesNewTurnsAndWaitsForTheOpenOnes) {
  TurnRegistry turns;
  ASSERT_TRUE(turns.open("a", "u", "c"));
  ASSERT_TRUE(turns.open("b", "u", "c"));
  EXPECT_TRUE(turns.stop_opening());
  EXPECT_FALSE(turns.stop_opening());  // once
  EXPECT_FALSE(turns.open("c", "u", "c"));
  EXPECT_EQ(turns.opened_total(), 2u);
  EXPECT_FALSE(turns.wait_closed(10ms));
  turns.closed("a");
  std::thread closer([&turns] {
    std::this_thread::sleep_for(20ms);
    turns.closed("b");
  });
  EXPECT_TRUE(turns.wait_closed(10s));
  closer.join();
  EXPECT_TRUE(turns.wait_closed(0ms));
}

}  // namespace
}  // namespace sigil::server
