#include "app/telegram_service.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <condition_variable>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "app/channel_turn.h"
#include "app/json_record.h"
#include "app/telegram_inbox.h"
#include "sigil/channels/json_fields.h"
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
// A forum topic is a conversation of its own: "tg-<chat.id>-topic-<message_thread_id>".
constexpr std::string_view kTopicInfix = "-topic-";
// An album's items come a moment apart: its turn starts once none has come for this long.
constexpr std::chrono::milliseconds kAlbumQuiet{1000};
// "typing" shows for ~5 s on Telegram: renewed every 4 s.
constexpr std::chrono::seconds kTypingEvery{4};

deliver::ChatOutboxOptions outbox_options(const tg::TelegramTarget& target, const TelegramConfig& config) {
  deliver::ChatOutboxOptions o;
  o.reply_to = std::to_string(target.answering);
  // Telegram allows about one edit a second per chat; the rate limit (1/s) applies on top.
  o.edit_interval = std::chrono::milliseconds(config.edit_interval_ms);
  // send-message's handler sent the text itself (it must know whether Telegram took it); nothing more.
  o.other_chat = [](const deliver::Delivery&) { return std::string(); };
  return o;
}

std::string conversation_of(std::int64_t chat_id, std::int64_t thread_id) {
  std::string id = std::string(kIdPrefix) + std::to_string(chat_id);
  if (thread_id != 0) id += std::string(kTopicInfix) + std::to_string(thread_id);
  return id;
}

std::optional<std::int64_t> whole_number(std::string_view digits) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || n == 0) return std::nullopt;
  return n;
}

// The chat (and forum topic) a conversation id of conversation_of() names; nullopt for any other id.
std::optional<std::pair<std::int64_t, std::int64_t>> chat_of(std::string_view conversation) {
  if (!conversation.starts_with(kIdPrefix)) return std::nullopt;
  conversation.remove_prefix(kIdPrefix.size());
  std::int64_t thread_id = 0;
  // rfind: a negative chat id has a '-' of its own, the infix never appears in it.
  if (const std::size_t at = conversation.rfind(kTopicInfix); at != std::string_view::npos) {
    const auto thread = whole_number(conversation.substr(at + kTopicInfix.size()));
    if (!thread) return std::nullopt;
    thread_id = *thread;
    conversation = conversation.substr(0, at);
  }
  const auto chat = whole_number(conversation);
  if (!chat) return std::nullopt;
  return std::pair{*chat, thread_id};
}

// The fields classify_update took from the update, as a pending record keeps them.
using Message = tg::InboundMessage;
using File = tg::InboundFile;
const JsonField<Message> kMessageFields[] = {
    {"update_id", &Message::update_id},
    {"chat_id", &Message::chat_id},
    {"chat_type", &Message::chat_type},
    {"from_id", &Message::from_id},
    {"from_name", &Message::from_name},
    {"message_id", &Message::message_id},
    {"text", &Message::text},
    {"reply_to_from", &Message::reply_to_from},
    {"thread_id", &Message::thread_id},  // 0 in a record made before topics were conversations
    {"media_group_id", &Message::media_group_id}};
const JsonField<File> kFileFields[] = {{"kind", &File::kind},
                                       {"file_id", &File::file_id},
                                       {"name", &File::name},
                                       {"mime_type", &File::mime_type},
                                       {"size", &File::size}};

boost::json::object payload_of(const Message& m) {
  boost::json::object o;
  write_fields(o, m, kMessageFields);
  if (m.file) write_fields(o["file"].emplace_object(), *m.file, kFileFields);
  return o;
}

std::optional<Message> message_of(const std::string& json) {
  const auto parsed = channels::parse_object(json);
  if (!parsed) return std::nullopt;
  Message m;
  read_fields(*parsed, m, kMessageFields);
  if (const auto* f = channels::object_at(*parsed, "file")) read_fields(*f, m.file.emplace(), kFileFields);
  if (m.update_id == 0 || m.chat_id == 0) return std::nullopt;
  return m;
}

}  // namespace

TelegramService::TelegramService(const TelegramConfig& config, agent::Agent& agent, store::Store& store,
                                 std::filesystem::path files_root)
    : config_(config),
      agent_(agent),
      files_root_(std::move(files_root)),
      io_(std::make_shared<net::IoThreads>(1)) {
  http_ = std::make_unique<net::HttpClient>(io_);
  send_api_ = std::make_unique<tg::BotApi>(*http_, config_.api_url, config_.token);
  poll_api_ = std::make_unique<tg::BotApi>(*http_, config_.api_url, config_.token);
  inbound_ = std::make_unique<ChannelInbound>(store, std::string(kChannel), send_api_->bot_id(), "update");
  albums_ = std::make_unique<TelegramAlbums>(kAlbumQuiet,
                                             [this](const TelegramAlbums::Items& items) { run_turn(items); });
  auto on = [this](std::int64_t id, const std::optional<tg::InboundMessage>& m, tg::Verdict v) {
    return on_update(id, m, v);
  };
  if (webhook_mode()) {
    webhook_ = std::make_unique<tg::WebhookReceiver>(
        *poll_api_, tg::WebhookOptions{config_.webhook_url, config_.webhook_secret, config_.allowed_users},
        std::move(on));
    return;
  }
  tg::PollerOptions o;
  o.allowed_users = config_.allowed_users;
  o.poll_timeout = std::chrono::seconds(config_.poll_timeout_seconds);
  poller_ = std::make_unique<tg::UpdatePoller>(*poll_api_, std::move(o), std::move(on));
}

TelegramService::~TelegramService() {
  stop_receiving();
  send_api_->stop();
}

void TelegramService::start() {
  run_pending();
  if (webhook_) {
    dispatcher_ = std::jthread([this](const std::stop_token& stop) { dispatch(stop); });
    webhook_->start();
  } else {
    poller_->start();
  }
}

void TelegramService::stop_receiving() {
  if (poller_) poller_->stop();
  if (webhook_) webhook_->stop();
  // Updates recorded and not started yet stay pending in the store: the next start runs them (an album's
  // items held here too).
  if (dispatcher_.joinable()) {
    dispatcher_.request_stop();
    dispatcher_.join();
  }
  if (albums_) albums_->stop();
}

tg::WebhookReply TelegramService::receive_webhook(std::string_view secret_header, std::string_view body) {
  if (!webhook_) return {404, "not in webhook mode"};
  return webhook_->receive(secret_header, body);
}

void TelegramService::dispatch(const std::stop_token& stop) {
  for (;;) {
    tg::InboundMessage m;
    {
      std::unique_lock lock(queue_mu_);
      if (!queue_cv_.wait(lock, stop, [this] { return !queue_.empty(); })) return;
      m = std::move(queue_.front());
      queue_.pop_front();
    }
    run_turn({std::move(m)});
  }
}

bool TelegramService::receiving() const {
  return (webhook_ && webhook_->registered()) || (poller_ && poller_->polling());
}

std::string TelegramService::health_json() const {
  const tg::BotApiStats receive = poll_api_->stats();
  const tg::BotApiStats send = send_api_->stats();
  std::string state = "connecting";
  if (webhook_ && webhook_->registered()) state = "webhook";
  if (poller_ && poller_->polling()) state = "polling";
  if (state == "connecting" && receive.failures > 0) state = "error";
  // The receiving side's error matters most (no messages come in); else the last send's.
  const bool receiving = this->receiving();
  return channel_health_json(config_.mode, state,
                             !receiving && !receive.last_error.empty() ? receive.last_error : send.last_error,
                             *inbound_);
}

std::set<std::string> TelegramService::running_turns() const { return inbound_->running(); }

void TelegramService::run_pending() {
  // Gathered first: an album's items resume as one turn, as they were meant.
  std::vector<tg::InboundMessage> pending;
  inbound_->resume_pending([&pending](const std::string& json) {
    std::optional<tg::InboundMessage> m = message_of(json);
    if (m) pending.push_back(std::move(*m));
    return m.has_value();
  });
  for (const TelegramAlbums::Items& items : albums_of(std::move(pending))) run_turn(items);
}

bool TelegramService::on_update(std::int64_t update_id, const std::optional<tg::InboundMessage>& message,
                                tg::Verdict verdict) {
  // A group's album mentions the bot in one caption: its other items belong to the album that one started.
  if (verdict == tg::Verdict::NotAddressed && message && !message->media_group_id.empty() &&
      albums_->gathering(message->chat_id, message->media_group_id))
    verdict = tg::Verdict::Admitted;
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
  if (!message->media_group_id.empty()) {
    albums_->add(*message);  // its turn starts when the album is whole
    return true;
  }
  if (webhook_) {
    // On the server's io thread: the update is stored; its turn starts on the dispatch thread.
    {
      std::lock_guard lock(queue_mu_);
      queue_.push_back(*message);
    }
    queue_cv_.notify_one();
    return true;
  }
  run_turn({*message});
  return true;
}

void TelegramService::run_turn(const TelegramAlbums::Items& items) {
  if (items.empty()) return;
  const tg::InboundMessage& m = items.front();
  tg::TelegramTarget target;
  target.chat_id = m.chat_id;
  target.thread_id = m.thread_id;
  target.answering = m.message_id;
  target.reply = m.chat_type != "private";
  target.stream = config_.stream;
  target.edit_gap = std::chrono::milliseconds(config_.edit_interval_ms);
  const std::string turn_id = std::string(kIdPrefix) + std::to_string(m.update_id);
  inbound_->begin(turn_id);
  auto observer = std::make_shared<ChannelTurn<tg::TelegramChannel>>(
      *send_api_, target, outbox_options(target, config_), kTypingEvery,
      [this, turn_id, items, chat = std::to_string(m.chat_id)](const agent::TurnSummary& summary,
                                                               const deliver::DeliveryReport& report,
                                                               const std::vector<std::string>& in_doubt) {
        for (std::size_t i = 1; i < items.size(); ++i) inbound_->finish(std::to_string(items[i].update_id));
        inbound_->end(std::to_string(items.front().update_id), turn_id, chat, summary, report, in_doubt);
      });
  observer->start_typing();
  agent::TurnInput in;
  in.user = std::string(kIdPrefix) + std::to_string(m.from_id);
  in.conversation = conversation_of(m.chat_id, m.thread_id);
  // The text (an album's captions) first, then one line per file. Downloaded here, after the update was
  // recorded: a crash meanwhile resumes the turn, which downloads them again to the same names.
  std::string files;
  for (const tg::InboundMessage& item : items) {
    if (!item.text.empty()) in.text += (in.text.empty() ? "" : "\n\n") + item.text;
    if (item.file)
      files += (files.empty() ? "" : "\n") + keep_inbound_file(*send_api_, files_root_, item.chat_id,
                                                               item.message_id, *item.file,
                                                               config_.max_download_bytes);
  }
  if (!files.empty()) in.text = in.text.empty() ? files : in.text + "\n\n" + files;
  in.message_id = std::to_string(m.message_id);
  in.turn_id = turn_id;
  agent_.start_turn(std::move(in), std::move(observer));
}

std::shared_ptr<agent::TurnObserver> TelegramService::task_observer(const store::ScheduledTask& task,
                                                                    const std::string& /*turn_id*/) {
  const auto chat = chat_of(task.scope.conversation_id);
  if (!chat) return nullptr;
  const auto [chat_id, thread_id] = *chat;
  tg::TelegramTarget target;
  target.chat_id = chat_id;
  target.thread_id = thread_id;  // a task set in a forum topic answers in that topic
  target.stream = config_.stream;
  target.edit_gap = std::chrono::milliseconds(config_.edit_interval_ms);
  auto observer = std::make_shared<ChannelTurn<tg::TelegramChannel>>(
      *send_api_, target, outbox_options(target, config_), kTypingEvery,
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
    out += channel_metrics(kChannel, name, api->stats());
  }
  return out + channel_connected(kChannel, receiving());
}

std::string TelegramService::send_message(std::string_view chat, std::string_view text) {
  std::int64_t chat_id = 0;
  const auto [end, ec] = std::from_chars(chat.data(), chat.data() + chat.size(), chat_id);
  if (ec != std::errc() || end != chat.data() + chat.size() || chat_id == 0)
    return "telegram: the chat must be a Telegram chat id (an integer)";
  tg::TelegramTarget target;
  target.chat_id = chat_id;
  tg::TelegramChannel channel(*send_api_, target);
  for (const std::string& part : deliver::split_text(text, 4096, deliver::TextUnit::Utf16)) {
    const deliver::ChannelResult r = channel.send_text(part);
    if (!r.ok()) return "telegram: " + r.error();
  }
  return {};
}

}  // namespace sigil::app
