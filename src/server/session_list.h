// The open connections stop() must close: held weakly, so a connection that ends is simply forgotten.
//
// What it promises:
// - track() is amortised O(1): expired entries are swept when the list has doubled since the last sweep,
//   so many short connections cost no more than a few.
// - take_live() empties the list and hands back the connections still alive, to close them.
// - Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace sigil::server {

// What stop() closes: an HTTP or a WebSocket session. close_from_server() is called from stop()'s thread
// and must only post the close to the connection's strand.
class Closable {
 public:
  virtual ~Closable() = default;
  virtual void close_from_server() = 0;
};

class SessionList {
 public:
  void track(const std::shared_ptr<Closable>& session);
  std::vector<std::shared_ptr<Closable>> take_live();
  // Entries held, expired or not (for tests).
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::weak_ptr<Closable>> sessions_;
  std::size_t sweep_at_ = 64;
};

}  // namespace sigil::server
