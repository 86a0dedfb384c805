// The gateway's counters and their Prometheus text (GET /metrics).
//
// What it promises:
// - ServerMetrics is what the server and its connections count into: thread-safe (atomics, and a mutex
//   for the per-route map), no sockets, so the text is tested on its own.
// - metrics_text() writes every series with its HELP and TYPE lines, requests by route label in label
//   order; the label is a route template (server/route.h), never a raw URL.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace sigil::server {

// One moment's values, as metrics_text() prints them.
struct MetricsSnapshot {
  std::map<std::string, std::uint64_t> requests;  // by route label
  std::uint64_t turns_total = 0;                  // turns started through the HTTP API
  std::size_t turns_active = 0;                   // the agent's running and waiting turns
  std::uint64_t rate_limited = 0;
  std::uint64_t connections_refused = 0;  // 503 beyond max_connections
  std::uint64_t refused_host = 0;         // 421
  std::uint64_t refused_origin = 0;       // 403
  std::size_t connections_open = 0;       // HTTP and WebSocket
  std::size_t ws_open = 0;
};

std::string metrics_text(const MetricsSnapshot& m);

class ServerMetrics {
 public:
  std::atomic<std::size_t> connections_open{0};
  std::atomic<std::size_t> ws_open{0};
  std::atomic<std::uint64_t> rate_limited{0};
  std::atomic<std::uint64_t> connections_refused{0};
  std::atomic<std::uint64_t> refused_host{0};
  std::atomic<std::uint64_t> refused_origin{0};

  void count_request(const std::string& label);

  // The counters above and the requests; turns_total and turns_active are the caller's to fill in.
  MetricsSnapshot snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::uint64_t> requests_;
};

}  // namespace sigil::server
