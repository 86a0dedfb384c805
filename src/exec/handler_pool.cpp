#include "sigil/exec/handler_pool.h"

#include <algorithm>
#include <utility>

namespace sigil::exec {

HandlerPool::HandlerPool(unsigned max_threads) : max_threads_(std::max(1u, max_threads)) {}

HandlerPool::~HandlerPool() {
  std::deque<std::function<void()>> dropped;
  Timers dropped_timers;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(jobs_);  // destroyed below, outside the lock: a job may own what owns more jobs
    dropped_timers.swap(timers_);
    timer_ids_.clear();
  }
  work_cv_.notify_all();
  timer_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  if (timer_.joinable()) timer_.join();
}

void HandlerPool::post(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
    if (idle_ == 0 && threads_.size() < max_threads_) threads_.emplace_back([this] { work(); });
  }
  work_cv_.notify_one();
}

HandlerPool::TimerId HandlerPool::call_at(Clock::time_point when, std::function<void()> fn) {
  std::lock_guard lock(mu_);
  if (stopping_) return 0;
  const TimerId id = next_timer_++;
  const bool earliest = timers_.empty() || when < timers_.begin()->first;
  timer_ids_.emplace(id, timers_.emplace(when, std::pair(id, std::move(fn))));
  if (!timer_.joinable())
    timer_ = std::thread([this] { time(); });
  else if (earliest)
    timer_cv_.notify_one();
  return id;
}

void HandlerPool::cancel(TimerId id) {
  std::function<void()> dropped;
  std::lock_guard lock(mu_);
  auto it = timer_ids_.find(id);
  if (it == timer_ids_.end()) return;
  dropped = std::move(it->second->second.second);
  timers_.erase(it->second);
  timer_ids_.erase(it);
}

std::size_t HandlerPool::threads() const {
  std::lock_guard lock(mu_);
  return threads_.size();
}

void HandlerPool::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    ++idle_;
    work_cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (stopping_) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // what it owns goes before the lock is taken again
    lock.lock();
  }
}

void HandlerPool::time() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (timers_.empty()) {
      timer_cv_.wait(lock);
      continue;
    }
    const auto due = timers_.begin()->first;
    if (Clock::now() < due) {
      timer_cv_.wait_until(lock, due);
      continue;
    }
    std::function<void()> fn = std::move(timers_.begin()->second.second);
    timer_ids_.erase(timers_.begin()->second.first);
    timers_.erase(timers_.begin());
    lock.unlock();
    fn();
    fn = nullptr;
    lock.lock();
  }
}

}  // namespace sigil::exec
