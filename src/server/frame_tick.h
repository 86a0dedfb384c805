// The gateway's write tick (HttpServerOptions::frame_tick): connections with frames waiting are moved on
// together, once per tick, by one timer on the io threads, instead of each waking an io thread for its own
// first frame. With a thousand conversations streaming that is a wake-up per tick instead of one per
// token.
//
// What it promises:
// - A client scheduled before a tick has its on_tick() called at that tick (on an io thread), once per
//   schedule() call; never after stop() returned its cancel (clients still waiting then are dropped).
// - The timer runs only while clients keep coming: after a run of empty ticks it stops, and the next
//   schedule() starts it again. An idle server has no tick.
// - schedule() and stop() are thread-safe; schedule() only queues (it may be called under other locks).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace sigil::server {

class TickClient {
 public:
  virtual ~TickClient();
  // At the tick, on an io thread: hand the waiting frames on (post to the client's own strand).
  virtual void on_tick() = 0;
};

class FrameTick : public std::enable_shared_from_this<FrameTick> {
 public:
  FrameTick(const boost::asio::any_io_executor& executor, std::chrono::microseconds period);

  void schedule(std::shared_ptr<TickClient> client);
  // Cancels the timer (so the io threads may end) and drops the clients waiting.
  void stop();

  std::uint64_t ticks() const;  // ticks that moved at least one client on (for tests)

 private:
  void arm();  // on strand_
  void fire(bool cancelled);

  static constexpr int kIdleTicks = 64;  // empty ticks before the timer stops

  const std::chrono::microseconds period_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::steady_timer timer_;  // only on strand_
  int idle_ = 0;                     // only on strand_

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<TickClient>> pending_;
  bool running_ = false;  // the timer is armed or about to be
  bool stopped_ = false;
  std::uint64_t ticks_ = 0;
};

}  // namespace sigil::server
