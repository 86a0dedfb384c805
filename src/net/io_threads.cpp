#include "sigil/net/io_threads.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <stdexcept>

#include "net/io_threads_impl.h"

namespace sigil::net {

namespace asio = boost::asio;

namespace {

class AsioTimer final : public Timer, public std::enable_shared_from_this<AsioTimer> {
 public:
  AsioTimer(asio::io_context& io, std::function<void(bool)> fn)
      : strand_(asio::make_strand(io)), timer_(strand_), fn_(std::move(fn)) {}

  void start(std::chrono::milliseconds delay) {
    timer_.expires_after(delay);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      auto fn = std::move(self->fn_);
      if (fn) fn(!ec && !self->cancelled_);
    });
  }

  void cancel() override {
    // The timer object is touched only on its strand; cancelling an already fired timer does nothing.
    asio::post(strand_, [self = shared_from_this()] {
      self->cancelled_ = true;
      self->timer_.cancel();
    });
  }

 private:
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  std::function<void(bool)> fn_;
  bool cancelled_ = false;
};

}  // namespace

IoThreads::IoThreads(int threads) : impl_(std::make_unique<Impl>()) {
  if (threads < 1) throw std::invalid_argument("net: io threads must be at least 1");
  for (int i = 0; i < threads; ++i) impl_->threads.emplace_back([this] { impl_->io.run(); });
}

IoThreads::~IoThreads() {
  std::vector<std::weak_ptr<Timer>> timers;
  {
    std::lock_guard lock(impl_->mutex);
    timers.swap(impl_->timers);
  }
  for (auto& weak : timers) {
    if (auto timer = weak.lock()) timer->cancel();
  }
  impl_->work.reset();
  for (auto& thread : impl_->threads) thread.join();
}

void IoThreads::post(std::function<void()> fn) { asio::post(impl_->io, std::move(fn)); }

std::shared_ptr<Timer> IoThreads::after(std::chrono::milliseconds delay, std::function<void(bool)> fn) {
  auto timer = std::make_shared<AsioTimer>(impl_->io, std::move(fn));
  {
    std::lock_guard lock(impl_->mutex);
    std::erase_if(impl_->timers, [](const std::weak_ptr<Timer>& w) { return w.expired(); });
    impl_->timers.push_back(timer);
  }
  timer->start(delay);
  return timer;
}

int IoThreads::thread_count() const noexcept { return static_cast<int>(impl_->threads.size()); }

}  // namespace sigil::net
