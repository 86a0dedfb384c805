// Counts an open connection (ServerMetrics::connections_open) for as long as it lives; max_connections is
// checked against that count. Moved from the HTTP session to the WebSocket session that takes its socket
// over, so an upgraded connection is counted once, until the WebSocket closes.
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

namespace sigil::server {

class ConnectionSlot {
 public:
  ConnectionSlot() = default;
  // `counter` has been incremented for this connection; it must outlive the slot.
  explicit ConnectionSlot(std::atomic<std::size_t>* counter) : counter_(counter) {}
  ConnectionSlot(ConnectionSlot&& other) noexcept : counter_(std::exchange(other.counter_, nullptr)) {}
  ConnectionSlot& operator=(ConnectionSlot&&) = delete;
  ~ConnectionSlot() {
    if (counter_ != nullptr) --*counter_;
  }

 private:
  std::atomic<std::size_t>* counter_ = nullptr;
};

}  // namespace sigil::server
