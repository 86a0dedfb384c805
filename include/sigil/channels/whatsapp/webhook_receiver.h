// The inbound side of the WhatsApp channel: Meta calls the app's callback URL, which the gateway's HTTP
// server routes here (the route is wired in app/; channels do not know the server).
//
// What it promises:
// - verify(query) answers the subscription's GET: 200 with hub.challenge when hub.mode is "subscribe" and
//   hub.verify_token is the configured one, else 403 (logged whatsapp-webhook-refused).
// - receive(signature, body) is one POST. The X-Hub-Signature-256 header is checked over the raw body, in
//   constant time, before anything is parsed: missing → 401, wrong (or a body changed by one byte) → 403;
//   either is counted (stats().refused), logged, and nothing is read or recorded. After stop() → 503 (Meta
//   delivers it again later). A body that is not a whatsapp_business_account payload → 400.
// - Each message is judged (inbound.h admit()); an admitted one goes to on_message, which records it
//   durably by its wamid (and starts its turn) and returns true, or false when it could not: the answer is
//   then 500, so Meta delivers the payload again; a redelivery reaches on_message again (its record makes
//   the second harmless). Others are logged (whatsapp-ignored, with why, never their text). The answer is
//   200 only when every admitted message was taken.
// - Statuses (sent, delivered, read, failed) are counted; a `failed` one is logged as a warning
//   (whatsapp-status-failed: the wamid, the recipient, WhatsApp's error code and title) and counted in
//   stats().failed_statuses: a message WhatsApp could not deliver is never silent.
// - Thread-safe: receive() may run on several threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/channels/whatsapp/inbound.h"

namespace sigil::channels::whatsapp {

struct WebhookOptions {
  std::string app_secret;    // the app's secret: the key of X-Hub-Signature-256
  std::string verify_token;  // what the subscription's GET must name
  AdmitPolicy policy;
};

struct WebhookReply {
  int status = 200;
  std::string body = "ok";
};

struct ReceiverStats {
  std::uint64_t posts = 0;     // POSTs whose signature matched
  std::uint64_t refused = 0;   // POSTs refused for their signature (missing or wrong)
  std::uint64_t messages = 0;  // admitted messages taken
  std::uint64_t ignored = 0;   // messages not admitted
  std::uint64_t statuses = 0;
  std::uint64_t failed_statuses = 0;
  bool verified = false;  // a subscription GET was answered
};

class WebhookReceiver {
 public:
  using OnMessage = std::function<bool(const InboundMessage&)>;
  WebhookReceiver(WebhookOptions options, OnMessage on_message);
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  WebhookReply verify(std::string_view query);
  WebhookReply receive(std::string_view signature_header, std::string_view body);
  void stop() { stopped_.store(true); }

  ReceiverStats stats() const;

 private:
  WebhookOptions options_;
  OnMessage on_message_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> verified_{false};
  std::atomic<std::uint64_t> posts_{0}, refused_{0}, messages_{0}, ignored_{0}, statuses_{0}, failed_{0};
};

}  // namespace sigil::channels::whatsapp
