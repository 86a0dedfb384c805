#include "app/slack_service.h"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

#include "app/channel_turn.h"
#include "app/json_record.h"
#include "app/user_files.h"
#include "sigil/channels/json_fields.h"
#include "sigil/channels/slack/slack_channel.h"
#include "sigil/deliver/split.h"
#include "sigil/log/log.h"

namespace sigil::app {
namespace {

namespace sl = channels::slack;

constexpr std::string_view kChannel = "slack";
// Slack ids as sigil names them: user "sl-<user id>", conversation "sl-<channel id>", turn
// "sl-<channel id>-<ts>".
constexpr std::string_view kIdPrefix = "sl-";

using Message = sl::InboundMessage;
using File = sl::InboundFile;
const JsonField<Message> kMessageFields[] = {
    {"event_id", &Message::event_id},  {"event_type", &Message::event_type},
    {"channel", &Message::channel},    {"channel_type", &Message::channel_type},
    {"user", &Message::user},          {"subtype", &Message::subtype},
    {"text", &Message::text},          {"ts", &Message::ts},
    {"thread_ts", &Message::thread_ts}};
const JsonField<File> kFileFields[] = {{"id", &File::id},
                                       {"name", &File::name},
                                       {"mimetype", &File::mimetype},
                                       {"size", &File::size},
                                       {"url", &File::url}};

std::string payload_of(const Message& m) {
  return record_json(m, kMessageFields,
                     [&](boost::json::object& o) { write_list(o, "files", m.files, kFileFields); });
}

std::optional<Message> message_of(const std::string& json) {
  auto m = read_record(json, kMessageFields, [](const boost::json::object& o, Message& r) {
    read_list(o, "files", r.files, kFileFields);
  });
  if (!m || m->channel.empty() || m->ts.empty()) return std::nullopt;
  return m;
}

bool is_channel_id(std::string_view s) {
  return s.size() >= 2 && s.size() <= 24 && (s.front() == 'C' || s.front() == 'D' || s.front() == 'G') &&
         s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == std::string_view::npos;
}

}  // namespace

SlackService::SlackService(const SlackConfig& config, agent::Agent& agent, store::Store& store,
                           std::filesystem::path files_root)
    : config_(config),
      agent_(agent),
      store_(store),
      files_root_(std::move(files_root)),
      io_(std::make_shared<net::IoThreads>(1)),
      inbound_(store, std::string(kChannel), sl::bot_account(config.bot_token), "message") {
  http_ = std::make_unique<net::HttpClient>(io_);
  ws_ = std::make_unique<net::WebSocketClient>(io_);
  sl::ApiOptions ao;
  ao.request_timeout = std::chrono::seconds(config_.request_timeout_seconds);
  send_api_ = std::make_unique<sl::WebApi>(*http_, config_.api_url, config_.bot_token, ao);
  app_api_ = std::make_unique<sl::WebApi>(*http_, config_.api_url, config_.app_token, ao);
  socket_ = std::make_unique<sl::SocketMode>(
      *app_api_, *ws_, sl::SocketModeOptions{},
      [this](const boost::json::object& payload, int /*attempt*/) { return on_event(payload); });
}

SlackService::~SlackService() {
  stop_receiving();
  send_api_->stop();
}

void SlackService::start() {
  inbound_.resume_pending([this](const std::string& json) {
    const std::optional<Message> m = message_of(json);
    return m && run_turn(*m);
  });
  socket_->start();
}

void SlackService::stop_receiving() {
  if (socket_) socket_->stop();
  if (app_api_) app_api_->stop();
}

bool SlackService::know_bot() {
  {
    std::lock_guard lock(mu_);
    if (!bot_user_.empty()) return true;
  }
  const sl::ApiOutcome o = send_api_->call("auth.test", {}, true);
  std::lock_guard lock(mu_);
  if (!o.ok()) {
    auth_error_ = "auth.test: " + o.summary();
    return false;
  }
  bot_user_ = channels::string_at(o.body, "user_id");
  bot_id_ = channels::string_at(o.body, "bot_id");
  auth_error_.clear();
  return !bot_user_.empty();
}

bool SlackService::on_event(const boost::json::object& payload) {
  const std::optional<Message> m = sl::read_event(payload);
  if (!m) return true;            // an event sigil does not answer: acked, nothing to record
  if (!know_bot()) return false;  // not acked: Slack sends it again, by then auth.test may answer
  sl::AdmitPolicy policy;
  policy.allowed_users = config_.allowed_users;
  {
    std::lock_guard lock(mu_);
    policy.bot_user = bot_user_;
    policy.bot_id = bot_id_;
  }
  const sl::Verdict verdict = sl::admit(*m, policy);
  if (verdict != sl::Verdict::Admitted) {
    // The bot's own messages come back as events: not worth a log line each.
    if (verdict != sl::Verdict::Own && log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "slack-ignored", {}}
                     .with("message", m->key())
                     .with("event", m->event_type)
                     .with("why", std::string(sl::to_string(verdict)))
                     .with("from", m->user));
    return true;
  }
  // False (the store failed): not acked, Slack sends it again.
  return inbound_.handle(m->key(), payload_of(*m), [&] { (void)run_turn(*m); });
}

bool SlackService::run_turn(const Message& m) {
  const std::string turn_id = std::string(kIdPrefix) + m.channel + "-" + m.ts;
  sl::SlackTarget target{m.channel, sl::thread_for(m), m.ts};
  auto observer = inbound_turn<sl::SlackChannel>(inbound_, *send_api_, target, held_until_final(m.ts),
                                                 std::chrono::seconds(8), m.key(), turn_id, m.channel);
  // No typing indicator: Slack has none for bots (SlackChannel::typing).
  std::string bot_user;
  {
    std::lock_guard lock(mu_);
    bot_user = bot_user_;
  }
  agent::TurnInput in;
  in.user = std::string(kIdPrefix) + m.user;
  in.conversation = std::string(kIdPrefix) + m.channel;
  in.text = sl::readable_text(sl::without_bot_mention(m.text, bot_user));
  if (!m.files.empty()) {
    // Downloaded here, after the message was recorded: a crash meanwhile resumes the turn, which downloads
    // them again to the same names.
    const std::string lines = keep_files(m);
    in.text = in.text.empty() ? lines : in.text + "\n\n" + lines;
  }
  in.message_id = m.ts;
  in.turn_id = turn_id;
  agent_.start_turn(std::move(in), std::move(observer));
  return true;
}

std::string SlackService::keep_files(const Message& m) {
  std::vector<MessageFile> files;
  for (const File& f : m.files) files.push_back({typed_user_file(f.name, f.mimetype, f.size), f.url});
  return message_file_lines(files, kChannel, m.channel, m.ts, files_root_, config_.max_download_bytes,
                            [this](const std::string& url, std::uint64_t max_bytes) {
                              return send_api_->download(url, max_bytes);
                            });
}

std::shared_ptr<agent::TurnObserver> SlackService::task_observer(const store::ScheduledTask& task,
                                                                 const std::string& turn_id) {
  const std::string_view conversation = task.scope.conversation_id;
  if (!conversation.starts_with(kIdPrefix)) return nullptr;
  const std::string_view channel = conversation.substr(kIdPrefix.size());
  if (!is_channel_id(channel)) return nullptr;
  sl::SlackTarget target{std::string(channel), {}, {}};
  return std::make_shared<ChannelTurn<sl::SlackChannel>>(
      *send_api_, target, held_until_final(), std::chrono::seconds(8),
      [id = task.id, turn_id, chat = target.channel](const agent::TurnSummary& summary,
                                                     const deliver::DeliveryReport& report,
                                                     const std::vector<std::string>& in_doubt) {
        log_channel_turn("slack-task", id, turn_id, chat, summary, report, in_doubt);
      });
}

std::string SlackService::metrics_text() const {
  const sl::ApiStats web = send_api_->stats();
  const sl::ApiStats app = app_api_->stats();
  const sl::SocketModeState s = socket_->state();
  std::string out = channel_metrics(kChannel, "web", web);
  ApiCounters socket;
  socket.calls = s.connects + app.calls;
  socket.retries = s.connects > 0 ? s.connects - 1 : 0;
  socket.failures = s.unrecorded + app.failures;
  socket.paced = app.paced;
  socket.last_error = !s.last_error.empty() ? s.last_error : app.last_error;
  out += channel_metrics(kChannel, "socket", socket);
  return out + channel_connected(kChannel, s.connected);
}

std::string SlackService::health_json() const {
  const sl::SocketModeState s = socket_->state();
  const std::string state = s.connected ? "connected" : s.fatal ? "error" : "connecting";
  std::string error = s.last_error;
  {
    std::lock_guard lock(mu_);
    if (error.empty()) error = auth_error_;
  }
  if (error.empty()) error = send_api_->stats().last_error;
  return channel_health_json("socket", state, error, inbound_);
}

std::string SlackService::send_message(std::string_view channel, std::string_view text) {
  if (!is_channel_id(channel))
    return "slack: the chat must be a Slack channel id (C…, D… or G…, from the channel's details)";
  sl::SlackChannel ch(*send_api_, sl::SlackTarget{std::string(channel), {}, {}});
  const deliver::ChannelResult r = ch.send_text(text);
  if (!r.ok()) return "slack: " + r.error();
  return {};
}

}  // namespace sigil::app
