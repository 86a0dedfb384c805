// The threads every net/ client runs on: one event loop (Asio io_context) served by N threads.
//
// Promises:
// - post() and after() never block and may be called from any thread, also from a callback running on
//   these threads.
// - after(delay, fn) calls fn exactly once on one of these threads: fn(true) when the delay passed,
//   fn(false) soon after Timer::cancel() (or when the IoThreads is being destroyed), whichever is first.
// - The destructor lets queued and cancelled work finish (so every after() callback has run), then joins
//   the threads. Destroy it from outside its threads; clients built on it hold a shared_ptr, so it lives
//   as long as the longest of them.
// Asio stays out of this header: net/'s sources reach the io_context through src/net/io_threads_impl.h.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

namespace sigil::net {

class Timer {
 public:
  virtual ~Timer() = default;
  virtual void cancel() = 0;
};

class IoThreads {
 public:
  // Throws std::invalid_argument when threads < 1.
  explicit IoThreads(int threads = 1);
  ~IoThreads();
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  void post(std::function<void()> fn);
  std::shared_ptr<Timer> after(std::chrono::milliseconds delay, std::function<void(bool fired)> fn);
  int thread_count() const noexcept;

  struct Impl;
  Impl& impl() noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sigil::net
