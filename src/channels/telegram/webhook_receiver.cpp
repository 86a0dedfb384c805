#include "sigil/channels/telegram/webhook_receiver.h"

#include <boost/json/array.hpp>
#include <utility>

#include "channels/telegram/call_until_ok.h"
#include "sigil/channels/json_fields.h"
#include "sigil/log/log.h"
#include "sigil/text/same_secret.h"

namespace sigil::channels::telegram {
namespace {

WebhookReply refuse(int status, std::string why) {
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, "telegram-webhook-refused", {}}
                   .with("status", status)
                   .with("why", why));
  return {status, std::move(why)};
}

}  // namespace

WebhookReceiver::WebhookReceiver(BotApi& api, WebhookOptions options, UpdatePoller::OnUpdate on_update)
    : api_(api), options_(std::move(options)), on_update_(std::move(on_update)) {}

WebhookReceiver::~WebhookReceiver() { stop(); }

void WebhookReceiver::start() {
  thread_.start([this](const std::stop_token& stop) { run(stop); });
}

void WebhookReceiver::stop() {
  stopped_.store(true);
  thread_.stop();
}

void WebhookReceiver::run(const std::stop_token& stop) {
  std::optional<AdmitPolicy> identity = learn_bot_identity(api_, stop, options_.allowed_users);
  if (!identity) return;
  {
    std::lock_guard lock(mu_);
    policy_ = std::move(*identity);
    ready_ = true;
  }
  const boost::json::object params{{"url", options_.url},
                                   {"secret_token", options_.secret},
                                   {"allowed_updates", boost::json::array{"message"}},
                                   {"drop_pending_updates", false}};
  if (!call_until_ok(api_, "setWebhook", params, stop, "telegram-set-webhook-failed").ok()) return;
  registered_.store(true);
  if (log::enabled(log::Level::info)) log::write(log::Record{log::Level::info, "telegram-webhook-set", {}});
}

WebhookReply WebhookReceiver::receive(std::string_view secret_header, std::string_view body) {
  if (secret_header.empty()) return refuse(401, "no X-Telegram-Bot-Api-Secret-Token header");
  if (!text::same_secret(secret_header, options_.secret))
    return refuse(403, "wrong X-Telegram-Bot-Api-Secret-Token header");
  AdmitPolicy policy;
  {
    std::lock_guard lock(mu_);
    if (!ready_ || stopped_.load()) return {503, "not ready"};
    policy = policy_;
  }
  const auto update = parse_object(body);
  if (!update || int_at(*update, "update_id") <= 0) return refuse(400, "the body is not a Telegram update");
  const ClassifiedUpdate c = classify_update(*update, policy);
  if (!on_update_(c.update_id, c.message, c.verdict)) return {500, "not recorded; deliver it again"};
  return {};
}

}  // namespace sigil::channels::telegram
