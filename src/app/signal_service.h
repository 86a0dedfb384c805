// The Signal channel wired into the gateway (architecture: channels/ may not use store/ or agent/, so the
// inbound side's decisions that need them are made here, in app/).
//
// What it promises:
// - start(): first the turns of messages recorded before and never finished run again, with their recorded
//   turn ids (their directives keep their exactly-once keys); then the receive stream opens (event_stream.h).
// - A message admitted by channels/signal/inbound.h (answered()) is recorded in the store by its key
//   ("<sender>/<timestamp>") before anything else is done with it, so a message handed on twice starts
//   nothing twice and a restart resumes its turn. A new one starts a turn: user "sg-<sender>", conversation
//   "sg-<sender>" (or "sg-<group id>"), turn id "<conversation>-<timestamp>". Others are logged with why
//   ("signal-ignored"), without their text.
// - What is not exactly-once: signal-cli acknowledges a message to Signal before it hands it on; a message in
//   a stream that died unseen, or (in signal-cli's default receive mode) one that arrived while no stream was
//   open, never reaches sigil. docs/channels/signal.md sets signal-cli up to keep that window small
//   (`--receive-mode on-connection`), and the stream's silence check (40 s) bounds how long a dead stream
//   goes unseen.
// - A turn's output goes through a ChatOutbox (text held until final) to a SignalChannel; the typing
//   indicator shows until something is. At its end the message is marked done ("signal-turn").
// - Attachments (at most 10, each up to max_download_bytes) are fetched with getAttachment when the turn
//   starts (again when it resumes) and kept beneath `files_root` (user_files.h).
// - send_message(): a text to a number, an ACI or a group id, for send-message.
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
#include "sigil/channels/signal/event_stream.h"
#include "sigil/channels/signal/inbound.h"
#include "sigil/channels/signal/rpc_api.h"
#include "sigil/channels/signal/signal_channel.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"
#include "sigil/store/store.h"

namespace sigil::app {

class SignalService final : public ChatService {
 public:
  SignalService(const SignalConfig& config, agent::Agent& agent, store::Store& store,
                std::filesystem::path files_root);
  ~SignalService() override;
  SignalService(const SignalService&) = delete;
  SignalService& operator=(const SignalService&) = delete;

  std::string_view name() const override { return "signal"; }
  void start() override;
  void stop_receiving() override;
  std::set<std::string> running_turns() const override { return inbound_.running(); }

  // A scheduled task's turn for a Signal conversation ("sg-…"): an observer that delivers there; nullptr for
  // any other conversation.
  std::shared_ptr<agent::TurnObserver> task_observer(const store::ScheduledTask& task,
                                                     const std::string& turn_id) override;

  // Sends `text` to `chat` (a number, an ACI or a group id); "" when Signal took every part, else the error.
  std::string send_message(std::string_view chat, std::string_view text) override;

  // Prometheus lines: the JSON-RPC counters (api="rpc"), the receive stream's (api="events": streams opened
  // as calls, drops and silent restarts as retries, checks signal-cli did not answer as failures), and
  // sigil_channel_connected{channel="signal"}.
  std::string metrics_text() const override;
  // The channel's state for /healthz: mode "sse", state "connected" or "connecting".
  std::string health_json() const override;

 private:
  void on_event(const boost::json::object& event);
  bool run_turn(const channels::signal::SignalMessage& message);
  std::string keep_files(const channels::signal::SignalMessage& message, const std::string& chat);
  channels::signal::SignalTarget target_for(std::string_view chat) const;

  SignalConfig config_;
  agent::Agent& agent_;
  store::Store& store_;
  std::filesystem::path files_root_;
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<channels::signal::RpcApi> api_;
  ChannelInbound inbound_;
  std::unique_ptr<channels::signal::EventStream> events_;
};

}  // namespace sigil::app
