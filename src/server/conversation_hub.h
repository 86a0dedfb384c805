// Who watches which conversation: (user, conversation) -> the live connections that want its events.
//
// What it promises:
// - Watchers are held weakly: a connection that goes away is skipped and forgotten without unwatch().
// - broadcast() hands the same frame (shared, never copied per watcher) to every live watcher of the
//   conversation, in the order broadcast() was called, and returns how many got it.
// - close() is a barrier: once it returns no watcher is called again (the server calls it before its io
//   threads stop, so no frame is posted to a finished io_context). Calls after close() do nothing.
// - Thread-safe. Watcher::send() is called with the hub's lock held: it must only queue (e.g. post to a
//   strand) and never call back into the hub.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sigil/channels/web/web_frame.h"

namespace sigil::server {

class Watcher {
 public:
  virtual ~Watcher();
  virtual void send(channels::web::SharedFrame frame) = 0;
};

class ConversationHub {
 public:
  void watch(const std::string& user, const std::string& conversation,
             const std::shared_ptr<Watcher>& watcher);
  void unwatch(const std::string& user, const std::string& conversation, const Watcher* watcher);
  std::size_t broadcast(const std::string& user, const std::string& conversation,
                        const channels::web::SharedFrame& frame);
  void close();
  // True when some live connection watches the conversation.
  bool watched(const std::string& user, const std::string& conversation) const;

  // Conversations with at least one registered watcher entry (for tests and metrics).
  std::size_t conversations() const;

 private:
  using Key = std::pair<std::string, std::string>;
  using KeyView = std::pair<std::string_view, std::string_view>;
  // Hashed, and looked up by views: a broadcast (one per token) neither copies the ids nor walks a tree of
  // string comparisons to find its watchers.
  struct KeyHash {
    using is_transparent = void;
    template <class K>
    std::size_t operator()(const K& k) const noexcept {
      const std::size_t u = std::hash<std::string_view>{}(k.first);
      return u ^ (std::hash<std::string_view>{}(k.second) + 0x9e3779b97f4a7c15ULL + (u << 6) + (u >> 2));
    }
  };
  struct KeyEqual {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      return std::string_view(a.first) == std::string_view(b.first) &&
             std::string_view(a.second) == std::string_view(b.second);
    }
  };
  mutable std::mutex mu_;
  bool closed_ = false;
  std::unordered_map<Key, std::vector<std::weak_ptr<Watcher>>, KeyHash, KeyEqual> watchers_;
};

}  // namespace sigil::server
