#include "server/server_metrics.h"

namespace sigil::server {

namespace {

void series(std::string& out, std::string_view name, std::string_view help, std::string_view type,
            std::uint64_t value) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
  out += name;
  out += ' ';
  out += std::to_string(value);
  out += '\n';
}

}  // namespace

std::string metrics_text(const MetricsSnapshot& m) {
  std::string out =
      "# HELP sigil_http_requests_total HTTP requests received, by route.\n"
      "# TYPE sigil_http_requests_total counter\n";
  for (const auto& [label, count] : m.requests) {
    out += "sigil_http_requests_total{path=\"" + label + "\"} " + std::to_string(count) + "\n";
  }
  series(out, "sigil_turns_total", "Turns started through the HTTP API.", "counter", m.turns_total);
  series(out, "sigil_turns_active", "Turns the agent is running or holding.", "gauge", m.turns_active);
  series(out, "sigil_rate_limited_total", "Messages refused by the per-user rate limit.", "counter",
         m.rate_limited);
  series(out, "sigil_connections_refused_total", "Connections refused with 503 beyond max_connections.",
         "counter", m.connections_refused);
  series(out, "sigil_refused_host_total", "Requests refused with 421: the Host header named another host.",
         "counter", m.refused_host);
  series(out, "sigil_refused_origin_total", "Requests refused with 403: a browser page of another origin.",
         "counter", m.refused_origin);
  series(out, "sigil_connections_open", "Open connections (HTTP and WebSocket).", "gauge",
         m.connections_open);
  series(out, "sigil_ws_connections_open", "Open WebSocket connections.", "gauge", m.ws_open);
  return out;
}

void ServerMetrics::count_request(const std::string& label) {
  std::lock_guard lock(mu_);
  ++requests_[label];
}

MetricsSnapshot ServerMetrics::snapshot() const {
  MetricsSnapshot m;
  {
    std::lock_guard lock(mu_);
    m.requests = requests_;
  }
  m.rate_limited = rate_limited.load();
  m.connections_refused = connections_refused.load();
  m.refused_host = refused_host.load();
  m.refused_origin = refused_origin.load();
  m.connections_open = connections_open.load();
  m.ws_open = ws_open.load();
  return m;
}

}  // namespace sigil::server
