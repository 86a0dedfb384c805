#include "server/turn_registry.h"

#include <algorithm>

#include "sigil/text/random_id.h"

namespace sigil::server {

std::string TurnRegistry::new_id() { return text::random_id("web-"); }

bool TurnRegistry::open(const std::string& turn_id, const std::string& user,
                        const std::string& conversation) {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  open_.emplace(turn_id, OpenTurn{user, conversation, false});
  ++opened_total_;
  return true;
}

void TurnRegistry::answered(const std::string& turn_id) {
  std::lock_guard lock(mu_);
  auto [begin, end] = open_.equal_range(turn_id);
  for (auto it = begin; it != end; ++it) {
    if (!it->second.answered) {
      it->second.answered = true;
      return;
    }
  }
}

bool TurnRegistry::running(const std::string& turn_id) const {
  std::lock_guard lock(mu_);
  auto [begin, end] = open_.equal_range(turn_id);
  return std::any_of(begin, end, [](const auto& entry) { return !entry.second.answered; });
}

void TurnRegistry::closed(const std::string& turn_id) {
  std::lock_guard lock(mu_);
  // An answered entry first: a retry of the same id may already be running.
  auto [begin, end] = open_.equal_range(turn_id);
  auto it = std::find_if(begin, end, [](const auto& entry) { return entry.second.answered; });
  if (it == end) it = begin;
  if (it != open_.end() && it->first == turn_id) open_.erase(it);
  closed_cv_.notify_all();
}

bool TurnRegistry::owns(const std::string& turn_id, const std::string& user,
                        const std::string& conversation) const {
  std::lock_guard lock(mu_);
  auto it = open_.find(turn_id);
  return it != open_.end() && it->second.user == user && it->second.conversation == conversation;
}

bool TurnRegistry::busy(const std::string& user, const std::string& conversation) const {
  std::lock_guard lock(mu_);
  for (const auto& [id, turn] : open_)
    if (!turn.answered && turn.user == user && turn.conversation == conversation) return true;
  return false;
}

bool TurnRegistry::stop_opening() {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  stopping_ = true;
  return true;
}

std::vector<std::string> TurnRegistry::open_ids() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  for (const auto& [id, turn] : open_) ids.push_back(id);
  return ids;
}

bool TurnRegistry::wait_closed(std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  return closed_cv_.wait_for(lock, limit, [this] { return open_.empty(); });
}

std::uint64_t TurnRegistry::opened_total() const {
  std::lock_guard lock(mu_);
  return opened_total_;
}

}  // namespace sigil::server
