// The counters and their Prometheus text (server/server_metrics.h).
#include "server/server_metrics.h"

#include <gtest/gtest.h>

namespace sigil::server {
namespace {

TEST(ServerMetricsTest, PrometheusTextHasEverySeriesWithHelpAndType) {
  MetricsSnapshot m;
  m.requests = {{"/metrics", 2}, {"/healthz", 7}};
  m.turns_total = 3;
  m.turns_active = 1;
  m.rate_limited = 4;
  m.connections_refused = 5;
  m.refused_host = 6;
  m.refused_origin = 8;
  m.connections_open = 9;
  m.ws_open = 10;
  EXPECT_EQ(metrics_text(m),
            "# HELP sigil_http_requests_total HTTP requests received, by route.\n"
            "# TYPE sigil_http_requests_total counter\n"
            "sigil_http_requests_total{path=\"/healthz\"} 7\n"
            "sigil_http_requests_total{path=\"/metrics\"} 2\n"
            "# HELP sigil_turns_total Turns started through the HTTP API.\n"
            "# TYPE sigil_turns_total counter\n"
            "sigil_turns_total 3\n"
            "# HELP sigil_turns_active Turns the agent is running or holding.\n"
            "# TYPE sigil_turns_active gauge\n"
            "sigil_turns_active 1\n"
            "# HELP sigil_rate_limited_total Messages refused by the per-user rate limit.\n"
            "# TYPE sigil_rate_limited_total counter\n"
            "sigil_rate_limited_total 4\n"
            "# HELP sigil_connections_refused_total Connections refused with 503 beyond max_connections.\n"
            "# TYPE sigil_connections_refused_total counter\n"
            "sigil_connections_refused_total 5\n"
            "# HELP sigil_refused_host_total Requests refused with 421: the Host header named another host.\n"
            "# TYPE sigil_refused_host_total counter\n"
            "sigil_refused_host_total 6\n"
            "# HELP sigil_refused_origin_total Requests refused with 403: a browser page of another origin.\n"
            "# TYPE sigil_refused_origin_total counter\n"
            "sigil_refused_origin_total 8\n"
            "# HELP sigil_connections_open Open connections (HTTP and WebSocket).\n"
            "# TYPE sigil_connections_open gauge\n"
            "sigil_connections_open 9\n"
            "# HELP sigil_ws_connections_open Open WebSocket connections.\n"
            "# TYPE sigil_ws_connections_open gauge\n"
            "sigil_ws_connections_open 10\n");
}

TEST(ServerMetricsTest, SnapshotReadsTheCounters) {
  ServerMetrics metrics;
  metrics.count_request("/healthz");
  metrics.count_request("/healthz");
  metrics.count_request("other");
  ++metrics.refused_origin;
  metrics.connections_open += 2;
  const MetricsSnapshot m = metrics.snapshot();
  EXPECT_EQ(m.requests.at("/healthz"), 2u);
  EXPECT_EQ(m.requests.at("other"), 1u);
  EXPECT_EQ(m.refused_origin, 1u);
  EXPECT_EQ(m.connections_open, 2u);
  EXPECT_EQ(m.refused_host, 0u);
  EXPECT_EQ(m.turns_total, 0u);  // the caller's to fill in
}

}  // namespace
}  // namespace sigil::server
