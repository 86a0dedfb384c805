#include "app/telegram_service.h"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <condition_variable>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "app/channel_turn.h"
#include "sigil/channels/telegram/telegram_channel.h"
#include "sigil/deliver/split.h"
#include "sigil/log/log.h"
#include "sigil/text/utf8.h"

namespace sigil::app {
namespace {

namespace tg = channels::telegram;

constexpr std::string_view kChannel = "telegram";
// Telegram ids as sigil names them: user "tg-<from.id>", conversation "tg-<chat.id>", turn "tg-<update_id>".
constexpr std::string_view kIdPrefix = "tg-";
// "typing" shows for ~5 s on Telegram: renewed every 4 s.
constexpr std::chrono::seconds kTypingEvery{4};

deliver::ChatOutboxOptions outbox_options(const tg::TelegramTarget& target) {
  deliver::ChatOutboxOptions o;
  o.reply_to = std::to_string(target.answering);
  // send-message's handler sent the text itself (it must know whether Telegram took it); nothing more.
  o.other_chat = [](const deliver::Delivery&) { return std::string(); };
  return o;
}

boost::json::object payload_of(const tg::InboundMessage& m) {
  return {{"update_id", m.update_id}, {"chat_id", m.chat_id},
          {"chat_type", m.chat_type}, {"from_id", m.from_id},
          {"from_name", m.from_name}, {"message_id", m.message_id},
          {"text", m.text},           {"reply_to_from", m.reply_to_from}};
}

std::optional<tg::InboundMessage> message_of(const std::string& json) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(json, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto& o = v.as_object();
  const auto num = [&](std::string_view k) -> std::int64_t {
    const auto* x = o.if_contains(k);
    return x != nullptr && x->is_int64() ? x->as_int64() : 0;
  };
  const auto str = [&](std::string_view k) -> std::string {
    const auto* x = o.if_contains(k);
    return x != nullptr && x->is_string() ? std::string(x->as_string()) : std::string();
  };
  tg::InboundMessage m;
  m.update_id = num("update_id");
  m.chat_id = num("chat_id");
  m.chat_type = str("chat_type");
  m.from_id = num("from_id");
  m.from_name = str("from_name");
  m.message_id = num("message_id");
  m.text = str("text");
  m.reply_to_from = num("reply_to_from");
  if (m.update_id == 0 || m.chat_id == 0) return std::nullopt;
  return m;
}

}  // namespace

TelegramService::TelegramService(const TelegramConfig& config, agent::Agent& agent, store::Store& store)
    : config_(config), agent_(agent), io_(std::make_shared<net::IoThreads>(1)) {
  http_ = std::make_unique<net::HttpClient>(io_);
  send_api_ = std::make_unique<tg::BotApi>(*http_, config_.api_url, config_.token);
  poll_api_ = std::make_unique<tg::BotApi>(*http_, config_.api_url, config_.token);
  inbound_ = std::make_unique<ChannelInbound>(store, std::string(kChannel), send_api_->bot_id(), "update");
  tg::PollerOptions o;
  o.allowed_users = config_.allowed_users;
  o.poll_timeout = std::chrono::seconds(config_.poll_timeout_seconds);
  poller_ =
      std::make_unique<tg::UpdatePoller>(*poll_api_, std::move(o),
                                         [this](std::int64_t id, const std::optional<tg::InboundMessage>& m,
                                                tg::Verdict v) { return on_update(id, m, v); });
}

TelegramService::~TelegramService() {
  stop_polling();
  send_api_->stop();
}

void TelegramService::start() {
  run_pending();
  poller_->start();
}

void TelegramService::stop_polling() {
  if (poller_) poller_->stop();
}

std::set<std::string> TelegramService::running_turns() const { return inbound_->running(); }

void TelegramService::run_pending() {
  inbound_->resume_pending([this](const std::string& json) {
    const std::optional<tg::InboundMessage> m = message_of(json);
    if (m) run_turn(*m);
    return m.has_value();
  });
}

bool TelegramService::on_update(std::int64_t update_id, const std::optional<tg::InboundMessage>& message,
                                tg::Verdict verdict) {
  if (verdict != tg::Verdict::Admitted || !message) {
    if (log::enabled(log::Level::info)) {
      log::Record r{log::Level::info, "telegram-ignored", {}};
      r.with("update", update_id).with("why", std::string(tg::to_string(verdict)));
      if (message) r.with("from", message->from_id).with("chat", message->chat_id);
      log::write(r);
    }
    return true;
  }
  switch (inbound_->record(std::to_string(update_id), boost::json::serialize(payload_of(*message)))) {
    case ChannelInbound::Recorded::Failed:
      return false;  // not confirmed: Telegram sends it again
    case ChannelInbound::Recorded::Duplicate:
      return true;
    case ChannelInbound::Recorded::Fresh:
      break;
  }
  run_turn(*message);
  return true;
}

void TelegramService::run_turn(const tg::InboundMessage& m) {
  tg::TelegramTarget target;
  target.chat_id = m.chat_id;
  target.answering = m.message_id;
  target.reply = m.chat_type != "private";
  const std::string turn_id = std::string(kIdPrefix) + std::to_string(m.update_id);
  inbound_->begin(turn_id);
  auto observer = std::make_shared<ChannelTurn<tg::TelegramChannel>>(
      *send_api_, target, outbox_options(target), kTypingEvery,
      [this, turn_id, key = std::to_string(m.update_id), chat = std::to_string(m.chat_id)](
          const agent::TurnSummary& summary, const deliver::DeliveryReport& report,
          const std::vector<std::string>& in_doubt) {
        inbound_->end(key, turn_id, chat, summary, report, in_doubt);
      });
  observer->start_typing();
  agent::TurnInput in;
  in.user = std::string(kIdPrefix) + std::to_string(m.from_id);
  in.conversation = std::string(kIdPrefix) + std::to_string(m.chat_id);
  in.text = m.text;
  in.turn_id = turn_id;
  agent_.start_turn(std::move(in), std::move(observer));
}

std::shared_ptr<agent::TurnObserver> TelegramService::task_observer(const store::ScheduledTask& task) {
  const std::string_view conversation = task.scope.conversation_id;
  if (!conversation.starts_with(kIdPrefix)) return nullptr;
  const std::string_view digits = conversation.substr(kIdPrefix.size());
  std::int64_t chat_id = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), chat_id);
  if (ec != std::errc() || end != digits.data() + digits.size() || chat_id == 0) return nullptr;
  const tg::TelegramTarget target{chat_id, 0, false};
  auto observer = std::make_shared<ChannelTurn<tg::TelegramChannel>>(
      *send_api_, target, outbox_options(target), kTypingEvery,
      [chat_id, id = task.id](const agent::TurnSummary& summary, const deliver::DeliveryReport& report,
                              const std::vector<std::string>& in_doubt) {
        log_channel_turn("telegram-task", id, summary.turn_id, std::to_string(chat_id), summary, report,
                         in_doubt);
      });
  observer->start_typing();
  return observer;
}

std::string TelegramService::metrics_text() const {
  std::string out;
  const std::pair<const char*, const tg::BotApi*> apis[] = {{"send", send_api_.get()},
                                                            {"poll", poll_api_.get()}};
  for (const auto& [name, api] : apis) {
    const tg::BotApiStats s = api->stats();
    out += channel_metrics(kChannel, name, {s.calls, s.retries, s.failures, s.last_error});
  }
  return out;
}

std::string TelegramService::send_message(std::string_view chat, std::string_view text) {
  std::int64_t chat_id = 0;
  const auto [end, ec] = std::from_chars(chat.data(), chat.data() + chat.size(), chat_id);
  if (ec != std::errc() || end != chat.data() + chat.size() || chat_id == 0)
    return "telegram: the chat must be a Telegram chat id (an integer)";
  tg::TelegramChannel channel(*send_api_, tg::TelegramTarget{chat_id, 0, false});
  for (const std::string& part : deliver::split_text(text, 4096, deliver::TextUnit::Utf16)) {
    const deliver::ChannelResult r = channel.send_text(part);
    if (!r.ok()) return "telegram: " + r.error();
  }
  return {};
}

}  // namespace sigil::app
