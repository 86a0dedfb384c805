// The inbound bookkeeping every chat platform channel shares (Telegram, Discord): each inbound message is
// recorded in the store's channel_inbound table by its platform id before it is confirmed to the platform,
// so a redelivery (or a replay after a reconnect) never starts a second turn and a restart resumes the
// turns that never ended.
//
// What it promises:
// - record(): Fresh when the message is new (recorded now, durably: the caller may confirm it and start its
//   turn), Duplicate when it was recorded before (log "<channel>-duplicate", start nothing), Failed when
//   the store failed (logged; the caller must not confirm it, so the platform sends it again).
// - handle(): record() and the turn of a Fresh message, as a channel that confirms what it handled wants.
// - resume_pending(): the records whose turn never ended, oldest first, each given to `run` (with a
//   "<channel>-resume" log line); a record `run` cannot read is marked finished.
// - pending_count(): the records whose turn has not ended (recorded, running, or to resume).
// - begin()/end(): the turns under way (running()); end() marks the record finished and logs
//   "<channel>-turn turn=<id> …" with what the outbox did differently and the sends in doubt.
// - metrics(): one platform API's counters as Prometheus text, the error line cut to 200 bytes and escaped.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/agent/agent.h"
#include "sigil/deliver/report.h"
#include "sigil/net/blocking_fetch.h"
#include "sigil/store/store.h"

namespace sigil::app {

class ChannelInbound {
 public:
  // `key_name` names the key in log lines: "update" (Telegram's update_id), "message" (Discord's id).
  ChannelInbound(store::Store& store, std::string channel, std::string account, std::string key_name);

  enum class Recorded : unsigned char { Fresh, Duplicate, Failed };
  Recorded record(const std::string& key, std::string payload_json);
  // record(), then `run_turn` for a Fresh message. False only when the store failed: the caller must not
  // confirm the message, so the platform sends it again (Slack, Discord).
  bool handle(const std::string& key, std::string payload_json, const std::function<void()>& run_turn);
  void resume_pending(const std::function<bool(const std::string& payload_json)>& run);

  void begin(const std::string& turn_id);
  void end(const std::string& key, const std::string& turn_id, std::string_view chat,
           const agent::TurnSummary& summary, const deliver::DeliveryReport& report,
           const std::vector<std::string>& in_doubt);
  // Marks a record finished whose turn was another's (an album's later items: telegram_albums.h).
  void finish(const std::string& key);
  std::set<std::string> running() const;
  // How many records wait for their turn to end (for /healthz); 0 when the store cannot say.
  std::size_t pending_count() const;

  const std::string& channel() const { return channel_; }

 private:
  store::Store& store_;
  std::string channel_;
  std::string account_;
  std::string key_name_;
  mutable std::mutex mu_;
  std::set<std::string> running_;
};

// A platform client's counts: the REST clients' own (net::CallStats), or a gateway's put in the same shape.
using ApiCounters = net::CallStats;

// The log line of a channel's turn ("<channel>-turn", or "<channel>-task" for a scheduled task's turn, then
// with its task id): how it ended, what the outbox sent and did differently, and the sends in doubt.
void log_channel_turn(const std::string& event, std::string_view task, std::string_view turn_id,
                      std::string_view chat, const agent::TurnSummary& summary,
                      const deliver::DeliveryReport& report, const std::vector<std::string>& in_doubt);

// A channel's state for /healthz, a JSON object: {"mode", "state", "last_error" (null when none),
// "running_turns", "pending_updates" (recorded, turn not ended: running or to resume at the next start)}.
std::string channel_health_json(std::string_view mode, std::string_view state, std::string_view last_error,
                                const ChannelInbound& inbound);

// The HELP/TYPE lines of the counters below (once per /metrics answer).
std::string channel_metrics_header();
// sigil_channel_calls_total{channel=…,api=…} …, _retries_total, _failures_total, _paced_total and
// sigil_channel_last_error_info{…,error="…"} 1 when there was an error.
std::string channel_metrics(std::string_view channel, std::string_view api, const ApiCounters& c);
// sigil_channel_connected{channel=…} 1 or 0.
std::string channel_connected(std::string_view channel, bool connected);

}  // namespace sigil::app
