#include "sigil/channels/whatsapp/webhook_receiver.h"

#include <utility>

#include "sigil/log/log.h"

namespace sigil::channels::whatsapp {
namespace {

WebhookReply refuse(int status, std::string why) {
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, "whatsapp-webhook-refused", {}}
                   .with("status", static_cast<std::int64_t>(status))
                   .with("why", why));
  return {status, std::move(why)};
}

}  // namespace

WebhookReceiver::WebhookReceiver(WebhookOptions options, OnMessage on_message)
    : options_(std::move(options)), on_message_(std::move(on_message)) {}

WebhookReply WebhookReceiver::verify(std::string_view query) {
  const auto challenge = verification_answer(query, options_.verify_token);
  if (!challenge) return refuse(403, "the verification request did not name the verify token");
  verified_.store(true);
  if (log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, "whatsapp-webhook-verified", {}});
  return {200, *challenge};
}

WebhookReply WebhookReceiver::receive(std::string_view signature_header, std::string_view body) {
  // The signature first: nothing of an unsigned body is read.
  if (signature_header.empty()) {
    ++refused_;
    return refuse(401, "no X-Hub-Signature-256 header");
  }
  if (!signature_matches(options_.app_secret, signature_header, body)) {
    ++refused_;
    return refuse(403, "X-Hub-Signature-256 does not match the body");
  }
  if (stopped_.load()) return {503, "stopping"};
  ++posts_;
  const std::optional<WebhookPayload> payload = read_payload(body);
  if (!payload) return refuse(400, "not a whatsapp_business_account payload");
  bool taken = true;
  for (const InboundMessage& m : payload->messages) {
    const Verdict verdict = admit(m, options_.policy);
    if (verdict != Verdict::Admitted) {
      ++ignored_;
      if (log::enabled(log::Level::info))
        log::write(log::Record{log::Level::info, "whatsapp-ignored", {}}
                       .with("message", m.id)
                       .with("type", m.type)
                       .with("why", std::string(to_string(verdict)))
                       .with("from", m.from));
      continue;
    }
    if (on_message_(m))
      ++messages_;
    else
      taken = false;
  }
  for (const StatusUpdate& s : payload->statuses) {
    ++statuses_;
    if (s.status != "failed") continue;
    ++failed_;
    if (log::enabled(log::Level::warn))
      log::write(log::Record{log::Level::warn, "whatsapp-status-failed", {}}
                     .with("message", s.id)
                     .with("to", s.recipient)
                     .with("code", s.error_code)
                     .with("error", s.error));
  }
  if (!taken) return {500, "not recorded; deliver it again"};
  return {200, "ok"};
}

ReceiverStats WebhookReceiver::stats() const {
  ReceiverStats s;
  s.posts = posts_.load();
  s.refused = refused_.load();
  s.messages = messages_.load();
  s.ignored = ignored_.load();
  s.statuses = statuses_.load();
  s.failed_statuses = failed_.load();
  s.verified = verified_.load();
  return s;
}

}  // namespace sigil::channels::whatsapp
