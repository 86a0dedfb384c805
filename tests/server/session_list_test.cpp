// The connections stop() closes (server/session_list.h).
#include "server/session_list.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace sigil::server {
namespace {

struct Counting final : Closable {
  int closes = 0;
  void close_from_server() override { ++closes; }
};

TEST(SessionListTest, TakeLiveHandsBackOnlyTheLiveOnesAndEmptiesTheList) {
  SessionList list;
  auto a = std::make_shared<Counting>();
  list.track(a);
  list.track(std::make_shared<Counting>());  // gone at once
  auto live = list.take_live();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].get(), a.get());
  EXPECT_EQ(list.size(), 0u);
  EXPECT_TRUE(list.take_live().empty());
}

TEST(SessionListTest, ManyShortConnectionsDoNotPileUp) {
  SessionList list;
  auto kept = std::make_shared<Counting>();
  list.track(kept);
  for (int i = 0; i < 10'000; ++i) list.track(std::make_shared<Counting>());
  EXPECT_LE(list.size(), 128u);  // swept whenever the list doubled
  EXPECT_EQ(list.take_live().size(), 1u);
}

}  // namespace
}  // namespace sigil::server
