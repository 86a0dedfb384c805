// channels/send_pace.h on a clock that never sleeps: how many calls go at once, how long the next one
// waits, keys kept apart, a stop ending a wait, memory bounded. The Telegram and Discord clients' use of
// it: bot_api_pace_test.cpp and discord_channel_test.cpp.
#include "channels/send_pace.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "deliver/fake_channel.h"

namespace sigil::channels {
namespace {

using namespace std::chrono_literals;
using deliver::testing::FakeClock;

struct Pauses {
  explicit Pauses(FakeClock& c) : clock(c) {}
  FakeClock& clock;
  std::vector<std::chrono::milliseconds> taken;
  bool stop = false;
  SendPace::Pause pause() {
    return [this](std::chrono::milliseconds d) {
      taken.push_back(d);
      if (stop) return false;
      clock.sleep_until(clock.now() + d);
      return true;
    };
  }
};

TEST(SendPace, ABurstGoesAtOnceThenTheRateHolds) {
  FakeClock clock;
  SendPace pace(10, 3, clock);  // 10 a second, 3 at once
  Pauses p(clock);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(pace.take(p.pause()));
  EXPECT_TRUE(p.taken.empty());
  EXPECT_TRUE(pace.take(p.pause()));
  ASSERT_EQ(p.taken.size(), 1u);
  EXPECT_EQ(p.taken[0], 100ms);
  EXPECT_EQ(pace.waits(), 1u);
  // Ten more take one second of the clock's time, give or take the rounding up to whole milliseconds.
  const auto before = clock.now();
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(pace.take(p.pause()));
  const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - before);
  EXPECT_GE(spent, 1000ms);
  EXPECT_LE(spent, 1010ms);
  EXPECT_EQ(pace.waits(), 11u);
}

TEST(SendPace, KeysHaveTheirOwnBuckets) {
  FakeClock clock;
  SendPace pace(1, 1, clock);
  Pauses p(clock);
  EXPECT_TRUE(pace.take(p.pause(), -100));
  EXPECT_TRUE(pace.take(p.pause(), -200));
  EXPECT_TRUE(p.taken.empty()) << "another group's bucket is not this one's";
  EXPECT_TRUE(pace.take(p.pause(), -100));
  ASSERT_EQ(p.taken.size(), 1u);
  EXPECT_EQ(p.taken[0], 1000ms);
}

TEST(SendPace, AStopEndsTheWaitWithoutAToken) {
  FakeClock clock;
  SendPace pace(1, 1, clock);
  Pauses p(clock);
  EXPECT_TRUE(pace.take(p.pause()));
  p.stop = true;
  EXPECT_FALSE(pace.take(p.pause()));
  EXPECT_EQ(pace.waits(), 0u);
  p.stop = false;
  EXPECT_TRUE(pace.take(p.pause())) << "the stopped take spent nothing";
  EXPECT_EQ(p.taken.back(), 1000ms);
}

TEST(SendPace, NoRateIsNoPace) {
  FakeClock clock;
  SendPace pace(0, 1, clock);
  Pauses p(clock);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(pace.take(p.pause(), i));
  EXPECT_TRUE(p.taken.empty());
  EXPECT_EQ(pace.keys(), 0u);
}

TEST(SendPace, FullBucketsAreForgottenWhenManyKeysAreKept) {
  FakeClock clock;
  SendPace pace(1, 2, clock);
  Pauses p(clock);
  for (int i = 0; i < 5000; ++i) {
    EXPECT_TRUE(pace.take(p.pause(), i));
    if (i % 100 == 99) clock.advance(10s);  // the earlier keys' buckets are full again
  }
  EXPECT_LE(pace.keys(), 1100u);
  EXPECT_TRUE(p.taken.empty());
}

}  // namespace
}  // namespace sigil::channels
