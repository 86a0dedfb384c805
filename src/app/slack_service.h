// The Slack channel wired into the gateway (architecture: channels/ may not use store/ or agent/, so the
// inbound side's decisions that need them are made here, in app/).
//
// What it promises:
// - start(): first the turns of messages recorded before and never finished run again, with their recorded
//   turn ids (their directives keep their exactly-once keys); then Socket Mode connects with the app-level
//   token.
// - An event admitted by channels/slack/inbound.h is recorded in the store by its message key
//   ("<channel>:<ts>") before its envelope is acked, so Slack sends again what a crash kept from being
//   recorded, and a redelivery, or the same message as `message` and `app_mention`, starts nothing twice. A
//   new one starts a turn: user "sl-<user id>", conversation "sl-<channel id>", turn id
//   "sl-<channel id>-<ts>". Others are logged with why ("slack-ignored"), without their text. The bot's
//   own ids come from auth.test before the first event is admitted; while auth.test fails, events are left
//   unacked (Slack sends them again).
// - A turn's output goes through a ChatOutbox (text held until final) to a SlackChannel answering in the
//   thread of a channel mention, at the top level of a DM. At its end the message is marked done and the
//   turn is logged ("slack-turn").
// - Files shared with the message (at most 10, each up to max_download_bytes) are downloaded with the bot
//   token when the turn starts (again when it resumes) and kept beneath `files_root` (user_files.h).
// - send_message(): a text to a channel id, for send-message (allow-listed by the handler).
// - stop_receiving(): Socket Mode closes; turns under way keep their channel until they end.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "app/channel_inbound.h"
#include "app/chat_service.h"
#include "app/config.h"
#include "sigil/agent/agent.h"
#include "sigil/channels/slack/inbound.h"
#include "sigil/channels/slack/socket_mode.h"
#include "sigil/channels/slack/web_api.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"
#include "sigil/net/websocket_client.h"
#include "sigil/store/store.h"

namespace sigil::app {

class SlackService final : public ChatService {
 public:
  SlackService(const SlackConfig& config, agent::Agent& agent, store::Store& store,
               std::filesystem::path files_root);
  ~SlackService() override;
  SlackService(const SlackService&) = delete;
  SlackService& operator=(const SlackService&) = delete;

  std::string_view name() const override { return "slack"; }
  void start() override;
  void stop_receiving() override;
  std::set<std::string> running_turns() const override { return inbound_.running(); }

  // A scheduled task's turn for a Slack conversation ("sl-<channel id>"): an observer that delivers there;
  // nullptr for any other conversation.
  std::shared_ptr<agent::TurnObserver> task_observer(const store::ScheduledTask& task,
                                                     const std::string& turn_id) override;

  // Sends `text` to the channel (a Slack channel id); "" when Slack took every part, else the error.
  std::string send_message(std::string_view channel, std::string_view text) override;

  // Prometheus lines: the Web API counters (api="web") and Socket Mode's (api="socket": connects as calls,
  // reconnects as retries), and sigil_channel_connected{channel="slack"}.
  std::string metrics_text() const override;
  // The channel's state for /healthz: mode "socket", state "connected", "connecting" or "error".
  std::string health_json() const override;

 private:
  bool on_event(const boost::json::object& payload);
  bool run_turn(const channels::slack::InboundMessage& message);
  bool know_bot();  // auth.test, once it succeeded
  std::string keep_files(const channels::slack::InboundMessage& message);

  SlackConfig config_;
  agent::Agent& agent_;
  store::Store& store_;
  std::filesystem::path files_root_;
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<net::WebSocketClient> ws_;
  // Two: stopping Socket Mode cancels its own calls (with the app-level token), not the turns' sends.
  std::unique_ptr<channels::slack::WebApi> send_api_;
  std::unique_ptr<channels::slack::WebApi> app_api_;
  ChannelInbound inbound_;
  mutable std::mutex mu_;
  std::string bot_user_, bot_id_;  // from auth.test
  std::string auth_error_;
  std::unique_ptr<channels::slack::SocketMode> socket_;
};

}  // namespace sigil::app
