#include "server/frame_tick.h"

#include <boost/asio/post.hpp>
#include <utility>

namespace sigil::server {

TickClient::~TickClient() = default;

FrameTick::FrameTick(const boost::asio::any_io_executor& executor, std::chrono::microseconds period)
    : period_(period), strand_(boost::asio::make_strand(executor)), timer_(strand_) {}

void FrameTick::schedule(std::shared_ptr<TickClient> client) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    pending_.push_back(std::move(client));
    if (running_) return;
    running_ = true;
  }
  boost::asio::post(strand_, [self = shared_from_this()] {
    self->idle_ = 0;
    self->arm();
  });
}

void FrameTick::arm() {
  timer_.expires_after(period_);
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    self->fire(ec == boost::asio::error::operation_aborted);
  });
}

void FrameTick::fire(bool cancelled) {
  std::vector<std::shared_ptr<TickClient>> due;
  {
    std::lock_guard lock(mu_);
    if (stopped_ || cancelled) {
      running_ = false;
      pending_.clear();
      return;
    }
    due.swap(pending_);
    if (!due.empty()) ++ticks_;
  }
  for (const auto& client : due) client->on_tick();
  idle_ = due.empty() ? idle_ + 1 : 0;
  if (idle_ >= kIdleTicks) {
    std::lock_guard lock(mu_);
    if (pending_.empty()) {  // else a client came meanwhile: keep ticking
      running_ = false;
      return;
    }
    idle_ = 0;
  }
  arm();
}

void FrameTick::stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    pending_.clear();
  }
  boost::asio::post(strand_, [self = shared_from_this()] { self->timer_.cancel(); });
}

std::uint64_t FrameTick::ticks() const {
  std::lock_guard lock(mu_);
  return ticks_;
}

}  // namespace sigil::server
