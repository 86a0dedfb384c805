#include "app/channel_inbound.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

#include "sigil/log/log.h"
#include "sigil/text/utf8.h"

namespace sigil::app {

ChannelInbound::ChannelInbound(store::Store& store, std::string channel, std::string account,
                               std::string key_name)
    : store_(store),
      channel_(std::move(channel)),
      account_(std::move(account)),
      key_name_(std::move(key_name)) {}

ChannelInbound::Recorded ChannelInbound::record(const std::string& key, std::string payload_json) {
  store::InboundRecord rec;
  rec.channel = channel_;
  rec.account = account_;
  rec.key = key;
  rec.payload_json = std::move(payload_json);
  rec.received_at = store::Clock::now();
  auto fresh = store_.record_inbound(rec);
  if (!fresh.ok()) {
    if (log::enabled(log::Level::error))
      log::write(log::Record{log::Level::error, channel_ + "-store", {}}.with("error", fresh.error()));
    return Recorded::Failed;
  }
  if (!*fresh) {
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, channel_ + "-duplicate", {}}.with(key_name_, key));
    return Recorded::Duplicate;
  }
  return Recorded::Fresh;
}

bool ChannelInbound::handle(const std::string& key, std::string payload_json,
                            const std::function<void()>& run_turn) {
  switch (record(key, std::move(payload_json))) {
    case Recorded::Failed:
      return false;
    case Recorded::Duplicate:
      return true;
    case Recorded::Fresh:
      break;
  }
  run_turn();
  return true;
}

void ChannelInbound::resume_pending(const std::function<bool(const std::string& payload_json)>& run) {
  auto pending = store_.pending_inbound(channel_, account_, 1000);
  if (!pending.ok()) {
    if (log::enabled(log::Level::error))
      log::write(log::Record{log::Level::error, channel_ + "-store", {}}.with("error", pending.error()));
    return;
  }
  for (const store::InboundRecord& r : *pending) {
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, channel_ + "-resume", {}}.with(key_name_, r.key));
    if (!run(r.payload_json)) (void)store_.finish_inbound(channel_, r.account, r.key, store::Clock::now());
  }
}

void ChannelInbound::begin(const std::string& turn_id) {
  std::lock_guard lock(mu_);
  running_.insert(turn_id);
}

void ChannelInbound::end(const std::string& key, const std::string& turn_id, std::string_view chat,
                         const agent::TurnSummary& summary, const deliver::DeliveryReport& report,
                         const std::vector<std::string>& in_doubt) {
  (void)store_.finish_inbound(channel_, account_, key, store::Clock::now());
  log_channel_turn(channel_ + "-turn", {}, turn_id, chat, summary, report, in_doubt);
  std::lock_guard lock(mu_);
  running_.erase(turn_id);
}

void ChannelInbound::finish(const std::string& key) {
  (void)store_.finish_inbound(channel_, account_, key, store::Clock::now());
}

std::set<std::string> ChannelInbound::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

std::size_t ChannelInbound::pending_count() const {
  auto pending = store_.pending_inbound(channel_, account_, 100'000);
  return pending.ok() ? pending->size() : 0;
}

std::string channel_health_json(std::string_view mode, std::string_view state, std::string_view last_error,
                                const ChannelInbound& inbound) {
  boost::json::object o{{"mode", mode}, {"state", state}};
  o["last_error"] = last_error.empty() ? boost::json::value(nullptr) : boost::json::value(last_error);
  o["running_turns"] = static_cast<std::int64_t>(inbound.running().size());
  o["pending_updates"] = static_cast<std::int64_t>(inbound.pending_count());
  return boost::json::serialize(o);
}

void log_channel_turn(const std::string& event, std::string_view task, std::string_view turn_id,
                      std::string_view chat, const agent::TurnSummary& summary,
                      const deliver::DeliveryReport& report, const std::vector<std::string>& in_doubt) {
  if (!log::enabled(log::Level::info)) return;
  log::Record r{log::Level::info, event, {}};
  if (!task.empty()) r.with("task", std::string(task));
  r.with("turn", std::string(turn_id))
      .with("chat", std::string(chat))
      .with("status", std::string(agent::to_string(summary.status)))
      .with("messages", static_cast<std::int64_t>(report.messages_sent))
      .with("files", static_cast<std::int64_t>(report.files_sent))
      .with("reactions", static_cast<std::int64_t>(report.reactions));
  for (const std::string& line : report.lines()) r.with("note", line);
  for (const std::string& line : in_doubt) r.with("in_doubt", line);
  log::write(r);
}

std::string channel_metrics_header() {
  return "# HELP sigil_channel_calls_total Calls made to a chat platform's API (each attempt).\n"
         "# TYPE sigil_channel_calls_total counter\n"
         "# HELP sigil_channel_retries_total Calls made again after a 429 or a failure to connect.\n"
         "# TYPE sigil_channel_retries_total counter\n"
         "# HELP sigil_channel_failures_total Calls that failed in the end.\n"
         "# TYPE sigil_channel_failures_total counter\n"
         "# HELP sigil_channel_paced_total Calls that waited for the platform's bot-wide or per-chat pace.\n"
         "# TYPE sigil_channel_paced_total counter\n"
         "# HELP sigil_channel_connected Whether the channel receives from its platform (polling, a webhook "
         "set, a gateway connected).\n"
         "# TYPE sigil_channel_connected gauge\n";
}

std::string channel_connected(std::string_view channel, bool connected) {
  return "sigil_channel_connected{channel=\"" + std::string(channel) + "\"} " + (connected ? "1" : "0") +
         "\n";
}

std::string channel_metrics(std::string_view channel, std::string_view api, const ApiCounters& c) {
  const auto escape = [](std::string_view v) {
    std::string out;
    for (char ch : v) {
      if (ch == '\\' || ch == '"') out += '\\';
      if (ch == '\n') {
        out += "\\n";
        continue;
      }
      out += ch;
    }
    return out;
  };
  const std::string base = "{channel=\"" + std::string(channel) + "\",api=\"" + std::string(api) + "\"";
  std::string out;
  out += "sigil_channel_calls_total" + base + "} " + std::to_string(c.calls) + "\n";
  out += "sigil_channel_retries_total" + base + "} " + std::to_string(c.retries) + "\n";
  out += "sigil_channel_failures_total" + base + "} " + std::to_string(c.failures) + "\n";
  out += "sigil_channel_paced_total" + base + "} " + std::to_string(c.paced) + "\n";
  if (!c.last_error.empty())
    out += "sigil_channel_last_error_info" + base + ",error=\"" +
           escape(c.last_error.substr(0, text::safe_cut(c.last_error, 200))) + "\"} 1\n";
  return out;
}

}  // namespace sigil::app
