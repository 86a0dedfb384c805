#include "server/session_list.h"

#include <algorithm>

namespace sigil::server {

void SessionList::track(const std::shared_ptr<Closable>& session) {
  std::lock_guard lock(mu_);
  if (sessions_.size() >= sweep_at_) {
    std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
    sweep_at_ = std::max<std::size_t>(64, sessions_.size() * 2);
  }
  sessions_.push_back(session);
}

std::vector<std::shared_ptr<Closable>> SessionList::take_live() {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Closable>> live;
  for (const auto& w : sessions_) {
    if (auto s = w.lock()) live.push_back(std::move(s));
  }
  sessions_.clear();
  return live;
}

std::size_t SessionList::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

}  // namespace sigil::server
