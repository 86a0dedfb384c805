#include "sigil/deliver/token_bucket.h"

#include <gtest/gtest.h>

#include <chrono>

namespace sigil::deliver {
namespace {

using namespace std::chrono_literals;
using Seconds = std::chrono::duration<double>;

TEST(TokenBucket, StartsFullAndRefillsAtItsRateUpToTheBurst) {
  TokenBucket::time_point t{};
  TokenBucket b(4.0, 2, t);  // a token every 250 ms, 2 at once
  EXPECT_DOUBLE_EQ(b.tokens(t), 2.0);
  EXPECT_TRUE(b.full(t));
  EXPECT_TRUE(b.try_take(t));
  EXPECT_TRUE(b.try_take(t));
  EXPECT_FALSE(b.try_take(t));
  EXPECT_FALSE(b.full(t));
  EXPECT_DOUBLE_EQ(b.wait(t).count(), 0.25);
  t += 125ms;
  EXPECT_DOUBLE_EQ(b.wait(t).count(), 0.125);
  EXPECT_FALSE(b.try_take(t));  // spends nothing
  EXPECT_DOUBLE_EQ(b.tokens(t), 0.5);
  t += 125ms;
  EXPECT_EQ(b.wait(t), Seconds::zero());
  EXPECT_TRUE(b.try_take(t));
  t += 24h;
  EXPECT_DOUBLE_EQ(b.tokens(t), 2.0);  // never past the burst
  EXPECT_TRUE(b.full(t));
}

TEST(TokenBucket, TimeGoingBackwardsAddsNothing) {
  const TokenBucket::time_point t = TokenBucket::time_point{} + 1min;
  TokenBucket b(1.0, 1, t);
  EXPECT_TRUE(b.try_take(t));
  EXPECT_FALSE(b.try_take(t - 30s));
  EXPECT_DOUBLE_EQ(b.tokens(t - 30s), 0.0);
  EXPECT_FALSE(b.try_take(t + 999ms));
  EXPECT_TRUE(b.try_take(t + 1s));
}

TEST(TokenBucket, ABurstOfZeroIsOneAndARateOfZeroIsUnlimited) {
  const TokenBucket::time_point t{};
  TokenBucket one(1.0, 0, t);
  EXPECT_TRUE(one.try_take(t));
  EXPECT_FALSE(one.try_take(t));
  TokenBucket unlimited(0, 1, t);
  EXPECT_TRUE(unlimited.unlimited());
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(unlimited.try_take(t));
  EXPECT_EQ(unlimited.wait(t), Seconds::zero());
  EXPECT_TRUE(unlimited.full(t));
}

}  // namespace
}  // namespace sigil::deliver
