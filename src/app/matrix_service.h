// The Matrix channel wired into the gateway (architecture: channels/ may not use store/ or agent/, so the
// inbound side's decisions that need them are made here, in app/). Unencrypted rooms only.
//
// What it promises:
// - start(): first the turns of messages recorded before and never finished run again, with their recorded
//   turn ids (their directives keep their exactly-once keys, their sends their txnIds); then the /sync loop
//   starts from the token kept in `sync_file`.
// - Every event of a batch that channels/matrix/inbound.h admits is recorded in the store by its event_id
//   before the batch's token is kept (sync_loop.h), so a crash re-reads what was not recorded, and an event
//   read twice starts nothing twice. A new one starts a turn: user "mx-<sender>", conversation "mx-<room>",
//   turn id "mx-<event id without $>". Others are logged with why ("matrix-ignored"), without their text.
// - An event in an encrypted room (m.room.encrypted: sigil has no keys) is recorded the same way and answered
//   once, in that room, with a plain m.notice saying encrypted rooms are not supported (in a room of more
//   than two, once per room while sigil runs), and logged ("matrix-encrypted"): never dropped silently.
// - A turn's output goes through a ChatOutbox (text held until final) to a MatrixChannel in the room, with
//   reactions on the message answered and the typing indicator until something shows; its txnIds are
//   derived from the turn id, so a resumed turn's sends are the same transactions.
// - Files sent with the message (m.image, m.file, m.audio, m.video; each up to max_download_bytes) are
//   downloaded from the homeserver's authenticated media API when the turn starts (again when it resumes)
//   and kept beneath `files_root` (user_files.h).
// - The token file is written whole, flushed to disk, then renamed: a crash keeps the old token or the
//   new one.
// - send_message(): a text to a room id, for send-message (allow-listed by the handler).
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/channel_inbound.h"
#include "app/chat_service.h"
#include "app/config.h"
#include "sigil/agent/agent.h"
#include "sigil/channels/matrix/client_api.h"
#include "sigil/channels/matrix/inbound.h"
#include "sigil/channels/matrix/sync_loop.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"
#include "sigil/store/store.h"

namespace sigil::app {

class MatrixService final : public ChatService {
 public:
  MatrixService(const MatrixConfig& config, agent::Agent& agent, store::Store& store,
                std::filesystem::path sync_file, std::filesystem::path files_root);
  ~MatrixService() override;
  MatrixService(const MatrixService&) = delete;
  MatrixService& operator=(const MatrixService&) = delete;

  std::string_view name() const override { return "matrix"; }
  void start() override;
  void stop_receiving() override;
  std::set<std::string> running_turns() const override { return inbound_.running(); }

  // A scheduled task's turn for a Matrix room ("mx-<room id>"): an observer that delivers there; nullptr
  // for any other conversation.
  std::shared_ptr<agent::TurnObserver> task_observer(const store::ScheduledTask& task,
                                                     const std::string& turn_id) override;

  // Sends `text` to a room ("!id:server"); "" when the homeserver took every part, else the error.
  std::string send_message(std::string_view room, std::string_view text) override;

  // Prometheus lines: the client-server API's counters (api="client") and the sync loop's (api="sync"),
  // and sigil_channel_connected{channel="matrix"}.
  std::string metrics_text() const override;
  // The channel's state for /healthz: mode "sync", state "connected", "connecting" or "error".
  std::string health_json() const override;

 private:
  bool on_events(const std::vector<channels::matrix::InboundEvent>& events);
  bool run_turn(const channels::matrix::InboundEvent& event);
  void encrypted_notice(const channels::matrix::InboundEvent& event);
  std::string keep_files(const channels::matrix::InboundEvent& event);
  std::string load_since() const;
  bool save_since(const std::string& token);

  MatrixConfig config_;
  agent::Agent& agent_;
  store::Store& store_;
  std::filesystem::path sync_file_, files_root_;
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  // Two: stopping the sync loop cancels its long poll, not the turns' sends.
  std::unique_ptr<channels::matrix::ClientApi> send_api_;
  std::unique_ptr<channels::matrix::ClientApi> sync_api_;
  ChannelInbound inbound_;
  mutable std::mutex mu_;
  std::set<std::string> recorded_;       // event ids recorded while running (the gap fill's stop)
  std::set<std::string> noticed_rooms_;  // group rooms told about encryption while running
  std::unique_ptr<channels::matrix::SyncLoop> sync_;
};

}  // namespace sigil::app
