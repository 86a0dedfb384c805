// The WhatsApp channel wired into the gateway (architecture: channels/ may not use store/ or agent/, so the
// inbound side's decisions that need them are made here, in app/).
//
// What it promises:
// - Meta posts to the gateway's HTTP server at [channels.whatsapp] webhook_path; verify_webhook() answers the
//   subscription's GET, receive_webhook() the POSTs (channels/whatsapp/webhook_receiver.h: the signature
//   first, nothing read from a refused body).
// - start(): the turns of messages recorded before and never finished run again, with their recorded turn
//   ids (their directives keep their exactly-once keys); until start() the webhook answers 503, so Meta
//   keeps what it posts for later.
// - An admitted message is recorded in the store by its wamid before the POST is answered 200: Meta posts
//   again what a crash kept from being recorded, and a redelivery starts nothing twice. A new one starts a
//   turn: user and conversation "wa-<wa_id>", turn id "wa-<wamid as base64url>". Its read receipt with the
//   typing indicator goes out first.
// - A turn's output goes through a ChatOutbox (text held until final: WhatsApp has no edits) to a
//   WhatsAppChannel answering the sender; at its end the record is marked done and the turn logged
//   ("whatsapp-turn").
// - The file a message carries (up to max_download_bytes) is downloaded with the access token when the turn
//   starts (again when it resumes) and kept beneath `files_root` (user_files.h).
// - send_message(): a text to a wa_id, for send-message (allow-listed by the handler).
// - stop_receiving(): later posts are answered 503; turns under way keep their channel until they end.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "app/channel_inbound.h"
#include "app/chat_service.h"
#include "app/config.h"
#include "sigil/agent/agent.h"
#include "sigil/channels/whatsapp/graph_api.h"
#include "sigil/channels/whatsapp/webhook_receiver.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"
#include "sigil/store/store.h"

namespace sigil::app {

class WhatsAppService final : public ChatService {
 public:
  WhatsAppService(const WhatsAppConfig& config, agent::Agent& agent, store::Store& store,
                  std::filesystem::path files_root);
  ~WhatsAppService() override;
  WhatsAppService(const WhatsAppService&) = delete;
  WhatsAppService& operator=(const WhatsAppService&) = delete;

  std::string_view name() const override { return "whatsapp"; }
  void start() override;
  void stop_receiving() override;
  std::set<std::string> running_turns() const override { return inbound_.running(); }

  channels::whatsapp::WebhookReply verify_webhook(std::string_view query);
  channels::whatsapp::WebhookReply receive_webhook(std::string_view signature, std::string_view body);

  // A scheduled task's turn for a WhatsApp conversation ("wa-<wa_id>"): an observer that delivers there;
  // nullptr for any other conversation.
  std::shared_ptr<agent::TurnObserver> task_observer(const store::ScheduledTask& task,
                                                     const std::string& turn_id) override;

  // Sends `text` to the user (a wa_id or phone number); "" when WhatsApp took every part, else the error.
  std::string send_message(std::string_view to, std::string_view text) override;

  // Prometheus lines: the Graph API's counters (api="graph"), the webhook's (api="webhook": posts as calls,
  // refused signatures and failed statuses as failures), and sigil_channel_connected{channel="whatsapp"}
  // (1 once Meta's verification GET was answered or a signed post came).
  std::string metrics_text() const override;
  // The channel's state for /healthz: mode "webhook", state "verified", "waiting" (no verification or signed
  // post yet) or "stopped".
  std::string health_json() const override;

 private:
  bool on_message(const channels::whatsapp::InboundMessage& message);
  bool run_turn(const channels::whatsapp::InboundMessage& message);

  WhatsAppConfig config_;
  agent::Agent& agent_;
  std::filesystem::path files_root_;
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<channels::whatsapp::GraphApi> api_;
  ChannelInbound inbound_;
  std::unique_ptr<channels::whatsapp::WebhookReceiver> receiver_;
  std::atomic<bool> started_{false}, stopped_{false};
};

}  // namespace sigil::app
