// The Discord channel wired into the gateway (architecture: channels/ may not use store/ or agent/, so the
// inbound side's decisions that need them are made here, in app/).
//
// What it promises:
// - start(): first the turns of messages recorded before and never finished run again, with their recorded
//   turn ids (so their directives keep their exactly-once keys and their sends the same nonces: Discord
//   answers a repeated nonce with the message it already has); then the gateway connects, RESUMEing the
//   session kept in `session_file` when there is one, so the messages that came while sigil was away are
//   replayed rather than lost.
// - A MESSAGE_CREATE admitted by channels/discord/inbound.h is recorded in the store (by message id) before
//   its seq counts as handled; a new one starts a turn: user "dc-<author id>", conversation "dc-<channel id>"
//   (one per channel, thread or DM), turn id "dc-<message id>"; one recorded before starts nothing. Others
//   are logged with why ("discord-ignored"), without their text.
// - A turn shows "typing" at once and every 8 s until something is shown; its output goes through a
//   ChatOutbox (text held until final, so a late sentinel never has to take shown text back) to a
//   DiscordChannel. At its end the message is marked done and the turn is logged ("discord-turn").
// - Files attached to the message (at most 10, each up to max_download_bytes) are downloaded from Discord's
//   CDN when the turn starts (again when it resumes) and kept beneath `files_root` (user_files.h); the model
//   reads one line per file after the text: where it lies, or why it was not kept.
// - send_message(): a text to a channel id, for send-message (allow-listed by the handler).
// - stop_receiving(): the gateway closes (its session stays resumable and kept); turns under way keep their
//   channel until they end.
#pragma once

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "app/channel_inbound.h"
#include "app/chat_service.h"
#include "app/config.h"
#include "sigil/agent/agent.h"
#include "sigil/channels/discord/gateway.h"
#include "sigil/channels/discord/inbound.h"
#include "sigil/channels/discord/rest_api.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"
#include "sigil/net/websocket_client.h"
#include "sigil/store/store.h"

namespace sigil::app {

class DiscordService final : public ChatService {
 public:
  // `files_root`: where the files users attach are kept (user_files.h), in discord/<channel id>/.
  DiscordService(const DiscordConfig& config, agent::Agent& agent, store::Store& store,
                 std::filesystem::path session_file, std::filesystem::path files_root);
  ~DiscordService() override;
  DiscordService(const DiscordService&) = delete;
  DiscordService& operator=(const DiscordService&) = delete;

  std::string_view name() const override { return "discord"; }
  void start() override;
  void stop_receiving() override;
  std::set<std::string> running_turns() const override { return inbound_.running(); }

  // A scheduled task's turn arrives where the task was set: for a Discord conversation ("dc-<channel id>") an
  // observer that delivers to that channel (its sends' nonces come from `turn_id`, so a task fired again
  // after a crash does not post twice); nullptr for any other conversation.
  std::shared_ptr<agent::TurnObserver> task_observer(const store::ScheduledTask& task,
                                                     const std::string& turn_id) override;

  // Sends `text` to the channel (a Discord channel id); "" when Discord took every part, else the error.
  std::string send_message(std::string_view channel, std::string_view text) override;

  // Prometheus lines (channel_metrics_header() goes before them once): the REST counters (api="rest"), the
  // gateway's (api="gateway": connects as calls, resumes and identifies after the first as retries) and
  // sigil_channel_connected{channel="discord"}.
  std::string metrics_text() const override;
  // The channel's state for /healthz (channel_health_json): mode "gateway", state "connected",
  // "connecting" or "error" (the session ended for good).
  std::string health_json() const override;

 private:
  bool on_dispatch(std::string_view type, const boost::json::object& data);
  bool run_turn(const channels::discord::InboundMessage& message);
  void save_session(const channels::discord::GatewaySession& session);
  std::string bot_id() const;
  std::string keep_attachments(const channels::discord::InboundMessage& message);

  DiscordConfig config_;
  agent::Agent& agent_;
  store::Store& store_;
  std::filesystem::path session_file_;
  std::filesystem::path files_root_;
  std::string account_;  // the bot's id (from the token's first part)
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<net::WebSocketClient> ws_;
  // Two: stopping the gateway cancels its own calls, not the sends of turns still running.
  std::unique_ptr<channels::discord::RestApi> send_api_;
  std::unique_ptr<channels::discord::RestApi> gateway_api_;
  ChannelInbound inbound_;
  std::unique_ptr<channels::discord::Gateway> gateway_;
};

}  // namespace sigil::app
