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

#include "sigil/agent/channel_observer.h"
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

// Holds the channel so it is built before the observer's outbox, which reads its capabilities.
struct ChannelMember {
  tg::TelegramChannel channel;
};

// One turn on one chat: the outbox on a TelegramChannel, and the typing indicator while nothing is shown.
class TelegramTurn final : private ChannelMember, public agent::ChannelObserver {
 public:
  using OnEnd = std::function<void(const agent::TurnSummary&, const deliver::DeliveryReport&,
                                   const std::vector<std::string>& in_doubt)>;

  TelegramTurn(tg::BotApi& api, tg::TelegramTarget target, OnEnd on_end)
      : ChannelMember{tg::TelegramChannel(api, target)},
        agent::ChannelObserver(channel, options(target)),
        on_end_(std::move(on_end)) {}

  ~TelegramTurn() override { stop_typing(); }

  // The first "typing" goes out before the turn starts (so it is the turn's first call); the thread renews
  // it every 4 s (Telegram shows it for ~5 s) until something is shown or the turn ends.
  void start_typing() {
    (void)channel.typing();
    typing_ = std::jthread([this](const std::stop_token& stop) {
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      while (!cv.wait_for(lock, stop, std::chrono::seconds(4), [] { return false; })) {
        if (stop.stop_requested() || channel.shown_anything()) return;
        (void)channel.typing();
      }
    });
  }

 protected:
  void turn_ended(const agent::TurnSummary& summary, const deliver::DeliveryReport& report) override {
    stop_typing();
    if (on_end_) on_end_(summary, report, channel.in_doubt());
  }

 private:
  static deliver::ChatOutboxOptions options(const tg::TelegramTarget& target) {
    deliver::ChatOutboxOptions o;
    o.reply_to = std::to_string(target.answering);
    // send-message's handler sent the text itself (it must know whether Telegram took it); nothing more.
    o.other_chat = [](const deliver::Delivery&) { return std::string(); };
    return o;
  }
  void stop_typing() {
    if (typing_.joinable()) {
      typing_.request_stop();
      if (typing_.get_id() != std::this_thread::get_id()) typing_.join();
    }
  }

  OnEnd on_end_;
  std::jthread typing_;
};

}  // namespace

TelegramService::TelegramService(const TelegramConfig& config, agent::Agent& agent, store::Store& store)
    : config_(config), agent_(agent), store_(store), io_(std::make_shared<net::IoThreads>(1)) {
  http_ = std::make_unique<net::HttpClient>(io_);
  send_api_ = std::make_unique<tg::BotApi>(*http_, config_.api_url, config_.token);
  poll_api_ = std::make_unique<tg::BotApi>(*http_, config_.api_url, config_.token);
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

std::set<std::string> TelegramService::running_turns() const {
  std::lock_guard lock(mu_);
  return running_;
}

void TelegramService::run_pending() {
  auto pending = store_.pending_inbound(kChannel, send_api_->bot_id(), 1000);
  if (!pending.ok()) {
    if (log::enabled(log::Level::error))
      log::write(log::Record{log::Level::error, "telegram-store", {}}.with("error", pending.error()));
    return;
  }
  for (const store::InboundRecord& r : *pending) {
    std::optional<tg::InboundMessage> m = message_of(r.payload_json);
    if (!m) {
      (void)store_.finish_inbound(kChannel, r.account, r.key, store::Clock::now());
      continue;
    }
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "telegram-resume", {}}.with("update", m->update_id));
    run_turn(*m);
  }
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
  store::InboundRecord rec;
  rec.channel = std::string(kChannel);
  rec.account = send_api_->bot_id();
  rec.key = std::to_string(update_id);
  rec.payload_json = boost::json::serialize(payload_of(*message));
  rec.received_at = store::Clock::now();
  auto fresh = store_.record_inbound(rec);
  if (!fresh.ok()) {
    if (log::enabled(log::Level::error))
      log::write(log::Record{log::Level::error, "telegram-store", {}}.with("error", fresh.error()));
    return false;  // not confirmed: Telegram sends it again
  }
  if (!*fresh) {
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "telegram-duplicate", {}}.with("update", update_id));
    return true;
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
  const std::string account = send_api_->bot_id();
  const std::string key = std::to_string(m.update_id);
  {
    std::lock_guard lock(mu_);
    running_.insert(turn_id);
  }
  auto observer = std::make_shared<TelegramTurn>(
      *send_api_, target,
      [this, turn_id, account, key, chat = m.chat_id](const agent::TurnSummary& summary,
                                                      const deliver::DeliveryReport& report,
                                                      const std::vector<std::string>& in_doubt) {
        (void)store_.finish_inbound(kChannel, account, key, store::Clock::now());
        if (log::enabled(log::Level::info)) {
          log::Record r{log::Level::info, "telegram-turn", {}};
          r.with("turn", turn_id)
              .with("chat", chat)
              .with("status", std::string(agent::to_string(summary.status)))
              .with("messages", static_cast<std::int64_t>(report.messages_sent))
              .with("files", static_cast<std::int64_t>(report.files_sent))
              .with("reactions", static_cast<std::int64_t>(report.reactions));
          for (const std::string& line : report.lines()) r.with("note", line);
          for (const std::string& line : in_doubt) r.with("in_doubt", line);
          log::write(r);
        }
        std::lock_guard lock(mu_);
        running_.erase(turn_id);
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
  auto observer = std::make_shared<TelegramTurn>(
      *send_api_, tg::TelegramTarget{chat_id, 0, false},
      [chat_id, id = task.id](const agent::TurnSummary& summary, const deliver::DeliveryReport& report,
                              const std::vector<std::string>& in_doubt) {
        if (!log::enabled(log::Level::info)) return;
        log::Record r{log::Level::info, "telegram-task", {}};
        r.with("task", id)
            .with("turn", summary.turn_id)
            .with("chat", chat_id)
            .with("status", std::string(agent::to_string(summary.status)))
            .with("messages", static_cast<std::int64_t>(report.messages_sent));
        for (const std::string& line : report.lines()) r.with("note", line);
        for (const std::string& line : in_doubt) r.with("in_doubt", line);
        log::write(r);
      });
  observer->start_typing();
  return observer;
}

std::string TelegramService::metrics_text() const {
  const auto escape = [](std::string_view v) {
    std::string out;
    for (char c : v) {
      if (c == '\\' || c == '"') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out;
  };
  std::string out =
      "# HELP sigil_channel_calls_total Calls made to a chat platform's API (each attempt).\n"
      "# TYPE sigil_channel_calls_total counter\n"
      "# HELP sigil_channel_retries_total Calls made again after a 429 or a failure to connect.\n"
      "# TYPE sigil_channel_retries_total counter\n"
      "# HELP sigil_channel_failures_total Calls that failed in the end.\n"
      "# TYPE sigil_channel_failures_total counter\n";
  const std::pair<const char*, const tg::BotApi*> apis[] = {{"send", send_api_.get()},
                                                            {"poll", poll_api_.get()}};
  for (const auto& [name, api] : apis) {
    const tg::BotApiStats s = api->stats();
    const std::string labels = std::string("{channel=\"telegram\",api=\"") + name + "\"}";
    out += "sigil_channel_calls_total" + labels + " " + std::to_string(s.calls) + "\n";
    out += "sigil_channel_retries_total" + labels + " " + std::to_string(s.retries) + "\n";
    out += "sigil_channel_failures_total" + labels + " " + std::to_string(s.failures) + "\n";
    if (!s.last_error.empty())
      out += std::string("sigil_channel_last_error_info{channel=\"telegram\",api=\"") + name + "\",error=\"" +
             escape(s.last_error.substr(0, text::safe_cut(s.last_error, 200))) + "\"} 1\n";
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
