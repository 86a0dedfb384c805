// The gateway's write tick: connections with frames waiting are moved on together, one timer wake-up per
// tick for all of them, and nothing is left behind after stop(). Counted, never timed.
#include "server/frame_tick.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace sigil::server {
namespace {

using namespace std::chrono_literals;

struct Counter final : TickClient {
  std::atomic<int> ticks{0};
  void on_tick() override { ++ticks; }
};

struct IoThread {
  boost::asio::io_context ioc;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work{
      ioc.get_executor()};
  std::thread thread{[this] { ioc.run(); }};
  ~IoThread() {
    work.reset();
    thread.join();
  }
};

template <class F>
void wait_for(F done) {
  for (int i = 0; i < 2000 && !done(); ++i) std::this_thread::sleep_for(5ms);
}

TEST(FrameTick, ManyClientsScheduledTogetherShareOneTick) {
  IoThread io;
  auto tick = std::make_shared<FrameTick>(io.ioc.get_executor(), 50ms);
  std::vector<std::shared_ptr<Counter>> clients;
  for (int i = 0; i < 100; ++i) clients.push_back(std::make_shared<Counter>());
  for (const auto& c : clients) tick->schedule(c);  // well within one 50 ms tick
  wait_for([&] {
    for (const auto& c : clients)
      if (c->ticks.load() == 0) return false;
    return true;
  });
  for (const auto& c : clients) EXPECT_EQ(c->ticks.load(), 1);
  EXPECT_EQ(tick->ticks(), 1u) << "a hundred connections woke the io thread more than once";
  tick->stop();
}

TEST(FrameTick, EachScheduleIsOneOnTickAndStopLetsTheIoThreadEnd) {
  auto counter = std::make_shared<Counter>();
  {
    IoThread io;
    auto tick = std::make_shared<FrameTick>(io.ioc.get_executor(), 1ms);
    for (int round = 1; round <= 3; ++round) {
      tick->schedule(counter);
      wait_for([&] { return counter->ticks.load() == round; });
      EXPECT_EQ(counter->ticks.load(), round);
    }
    tick->stop();
    tick->schedule(counter);  // after stop: dropped
  }                           // joins the io thread: the timer no longer keeps it running
  EXPECT_EQ(counter->ticks.load(), 3);
}

}  // namespace
}  // namespace sigil::server
