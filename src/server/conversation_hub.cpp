#include "server/conversation_hub.h"

#include <array>

namespace sigil::server {

Watcher::~Watcher() = default;

void ConversationHub::watch(const std::string& user, const std::string& conversation,
                            const std::shared_ptr<Watcher>& watcher) {
  std::lock_guard lock(mu_);
  if (closed_) return;
  auto& list = watchers_[Key{user, conversation}];
  std::erase_if(list, [](const auto& w) { return w.expired(); });
  list.push_back(watcher);
}

void ConversationHub::unwatch(const std::string& user, const std::string& conversation,
                              const Watcher* watcher) {
  std::lock_guard lock(mu_);
  auto it = watchers_.find(KeyView{user, conversation});
  if (it == watchers_.end()) return;
  std::erase_if(it->second, [watcher](const std::weak_ptr<Watcher>& w) {
    auto p = w.lock();
    return !p || p.get() == watcher;
  });
  if (it->second.empty()) watchers_.erase(it);
}

std::size_t ConversationHub::broadcast(const std::string& user, const std::string& conversation,
                                       const channels::web::SharedFrame& frame) {
  // The locked pointers are released after the lock: the last reference to a closing connection may be
  // dropped here, and its destructor must not run under the hub's lock.
  // Most conversations have one or two pages open: their pointers stay on the stack.
  std::array<std::shared_ptr<Watcher>, 4> few;
  std::vector<std::shared_ptr<Watcher>> more;
  std::size_t live = 0;
  {
    std::lock_guard lock(mu_);
    if (closed_) return 0;
    auto it = watchers_.find(KeyView{user, conversation});
    if (it == watchers_.end()) return 0;
    auto& list = it->second;
    for (auto w = list.begin(); w != list.end();) {
      if (auto p = w->lock()) {
        p->send(frame);
        if (live < few.size())
          few[live] = std::move(p);
        else
          more.push_back(std::move(p));
        ++live;
        ++w;
      } else {
        w = list.erase(w);
      }
    }
    if (list.empty()) watchers_.erase(it);
  }
  return live;
}

void ConversationHub::close() {
  decltype(watchers_) gone;
  std::lock_guard lock(mu_);
  closed_ = true;
  gone.swap(watchers_);
}

bool ConversationHub::watched(const std::string& user, const std::string& conversation) const {
  std::lock_guard lock(mu_);
  if (closed_) return false;
  auto it = watchers_.find(KeyView{user, conversation});
  if (it == watchers_.end()) return false;
  for (const auto& w : it->second)
    if (!w.expired()) return true;
  return false;
}

std::size_t ConversationHub::conversations() const {
  std::lock_guard lock(mu_);
  return watchers_.size();
}

}  // namespace sigil::server
