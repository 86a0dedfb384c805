// The replay model's timer sleep (src/model/replay/wakeable_sleep.h): a wake-up is never lost, whether it
// comes before or during the sleep. A lost one would hang; the test waits for the sleeper only so long.
#include "model/replay/wakeable_sleep.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <optional>
#include <thread>

namespace sigil::model::replay {
namespace {

using Clock = WakeableSleep::Clock;
constexpr auto kLongAway = std::chrono::hours(1);

// Runs `sleep` on a thread of its own; true when it returned within a generous bound.
template <class Sleep>
bool returns(Sleep sleep) {
  auto done = std::async(std::launch::async, sleep);
  return done.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
}

TEST(WakeableSleep, AWakeBetweenTheTicketAndTheSleepEndsItAtOnce) {
  WakeableSleep sleep;
  const std::uint32_t ticket = sleep.ticket();
  sleep.wake();
  EXPECT_TRUE(returns([&] { sleep.sleep_until(ticket, Clock::now() + kLongAway); }));
  EXPECT_TRUE(returns([&] { sleep.sleep_until(ticket, std::nullopt); }));
  EXPECT_NE(sleep.ticket(), ticket);
}

TEST(WakeableSleep, AWakeDuringTheSleepEndsItAndAPastDeadlineDoesNotSleep) {
  WakeableSleep sleep;
  EXPECT_TRUE(returns([&] { sleep.sleep_until(sleep.ticket(), Clock::now() - std::chrono::seconds(1)); }));
  std::promise<void> about_to_sleep;
  auto sleeper = std::async(std::launch::async, [&] {
    const std::uint32_t ticket = sleep.ticket();
    about_to_sleep.set_value();
    sleep.sleep_until(ticket, std::nullopt);
  });
  about_to_sleep.get_future().wait();
  sleep.wake();  // before or during its sleep: either way it ends
  EXPECT_EQ(sleeper.wait_for(std::chrono::seconds(20)), std::future_status::ready);
}

}  // namespace
}  // namespace sigil::model::replay
