#include "app/discord_service.h"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <fstream>
#include <sstream>
#include <utility>

#include "app/channel_turn.h"
#include "app/json_record.h"
#include "app/user_files.h"
#include "sigil/channels/discord/discord_channel.h"
#include "sigil/channels/json_fields.h"
#include "sigil/deliver/split.h"
#include "sigil/log/log.h"

namespace sigil::app {
namespace {

namespace dc = channels::discord;

constexpr std::string_view kChannel = "discord";
// Discord ids as sigil names them: user "dc-<author id>", conversation "dc-<channel id>", turn "dc-<message
// id>".
constexpr std::string_view kIdPrefix = "dc-";

// The fields read_message_create took from Discord's Message object, as a pending record keeps them.
using Message = dc::InboundMessage;
using Attachment = dc::InboundAttachment;
const JsonField<Message> kMessageFields[] = {{"id", &Message::id},
                                             {"channel_id", &Message::channel_id},
                                             {"guild_id", &Message::guild_id},
                                             {"author_id", &Message::author_id},
                                             {"author_name", &Message::author_name},
                                             {"content", &Message::content},
                                             {"reply_to_author", &Message::reply_to_author},
                                             {"voice", &Message::voice}};
const JsonField<Attachment> kAttachmentFields[] = {{"id", &Attachment::id},
                                                   {"filename", &Attachment::filename},
                                                   {"content_type", &Attachment::content_type},
                                                   {"size", &Attachment::size},
                                                   {"url", &Attachment::url}};

std::string payload_of(const Message& m) {
  return record_json(m, kMessageFields, [&](boost::json::object& o) {
    boost::json::array& mentions = o["mentions"].emplace_array();
    for (const std::string& id : m.mentions) mentions.emplace_back(id);
    write_list(o, "attachments", m.attachments, kAttachmentFields);
  });
}

std::optional<Message> message_of(const std::string& json) {
  auto m = read_record(json, kMessageFields, [](const boost::json::object& o, Message& r) {
    if (const auto* list = o.if_contains("mentions"); list != nullptr && list->is_array())
      for (const auto& id : list->as_array())
        if (id.is_string()) r.mentions.emplace_back(id.as_string());
    read_list(o, "attachments", r.attachments, kAttachmentFields);
  });
  if (!m || m->id.empty() || m->channel_id.empty()) return std::nullopt;
  return m;
}

std::optional<dc::GatewaySession> load_session(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const auto parsed = channels::parse_object(text.str());
  if (!parsed) return std::nullopt;
  const auto& o = *parsed;
  dc::GatewaySession s{channels::string_at(o, "session_id"), channels::int_at(o, "seq"),
                       channels::string_at(o, "resume_url")};
  if (s.session_id.empty() || s.resume_url.empty()) return std::nullopt;
  return s;
}

}  // namespace

DiscordService::DiscordService(const DiscordConfig& config, agent::Agent& agent, store::Store& store,
                               std::filesystem::path session_file, std::filesystem::path files_root)
    : config_(config),
      agent_(agent),
      store_(store),
      session_file_(std::move(session_file)),
      files_root_(std::move(files_root)),
      account_(dc::bot_id_from_token(config.token)),
      io_(std::make_shared<net::IoThreads>(1)),
      inbound_(store, std::string(kChannel), account_, "message") {
  http_ = std::make_unique<net::HttpClient>(io_);
  ws_ = std::make_unique<net::WebSocketClient>(io_);
  dc::RestOptions ro;
  ro.request_timeout = std::chrono::seconds(config_.request_timeout_seconds);
  send_api_ = std::make_unique<dc::RestApi>(*http_, config_.api_url, config_.token, ro);
  gateway_api_ = std::make_unique<dc::RestApi>(*http_, config_.api_url, config_.token, ro);
  dc::GatewayOptions go;
  go.token = config_.token;
  if (auto kept = load_session(session_file_)) go.resume = *kept;
  gateway_ = std::make_unique<dc::Gateway>(
      *gateway_api_, *ws_, std::move(go),
      [this](std::string_view type, const boost::json::object& d) { return on_dispatch(type, d); },
      [this](const dc::GatewaySession& s) { save_session(s); });
}

DiscordService::~DiscordService() {
  stop_receiving();
  send_api_->stop();
}

void DiscordService::start() {
  inbound_.resume_pending([this](const std::string& json) {
    const std::optional<dc::InboundMessage> m = message_of(json);
    return m && run_turn(*m);
  });
  gateway_->start();
}

void DiscordService::stop_receiving() {
  if (gateway_) gateway_->stop();
  if (gateway_api_) gateway_api_->stop();
}

void DiscordService::save_session(const dc::GatewaySession& s) {
  // Written whole, then renamed: a crash leaves the old session or the new one, never half of one.
  const std::filesystem::path tmp = session_file_.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << boost::json::serialize(
        boost::json::object{{"session_id", s.session_id}, {"seq", s.seq}, {"resume_url", s.resume_url}});
    if (!out) return;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, session_file_, ec);
}

std::string DiscordService::bot_id() const {
  // The token names the bot; READY says it too (for a token whose first part is not the id).
  return account_ != "unknown" ? account_ : gateway_->state().bot_id;
}

bool DiscordService::on_dispatch(std::string_view type, const boost::json::object& d) {
  if (type != "MESSAGE_CREATE") return true;
  const std::optional<dc::InboundMessage> m = dc::read_message_create(d);
  if (!m) return true;
  dc::AdmitPolicy policy;
  policy.allowed_users = config_.allowed_users;
  policy.bot_id = bot_id();
  const dc::Verdict verdict = dc::admit(*m, policy);
  if (verdict != dc::Verdict::Admitted) {
    // The bot's own messages come back on the gateway: not worth a log line each.
    if (verdict != dc::Verdict::Own && log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "discord-ignored", {}}
                     .with("message", m->id)
                     .with("why", std::string(dc::to_string(verdict)))
                     .with("from", m->author_id)
                     .with("chat", m->channel_id));
    return true;
  }
  // False (the store failed): not handled, the gateway resumes and Discord replays it.
  return inbound_.handle(m->id, payload_of(*m), [&] { (void)run_turn(*m); });
}

bool DiscordService::run_turn(const dc::InboundMessage& m) {
  const std::string turn_id = std::string(kIdPrefix) + m.id;
  dc::DiscordTarget target;
  target.channel_id = m.channel_id;
  target.answering = m.id;
  target.reply = !m.guild_id.empty();
  target.nonce_seed = account_ + ":" + turn_id;
  auto observer = inbound_turn<dc::DiscordChannel>(inbound_, *send_api_, target, held_until_final(m.id),
                                                   std::chrono::seconds(8), m.id, turn_id, m.channel_id);
  observer->start_typing();
  agent::TurnInput in;
  in.user = std::string(kIdPrefix) + m.author_id;
  in.conversation = std::string(kIdPrefix) + m.channel_id;
  in.text = dc::without_bot_mention(m.content, bot_id());
  if (!m.attachments.empty()) {
    // Downloaded here, after the message was recorded: a crash meanwhile resumes the turn, which downloads
    // them again to the same names.
    const std::string lines = keep_attachments(m);
    in.text = in.text.empty() ? lines : in.text + "\n\n" + lines;
  }
  in.message_id = m.id;
  in.turn_id = turn_id;
  agent_.start_turn(std::move(in), std::move(observer));
  return true;
}

std::string DiscordService::keep_attachments(const dc::InboundMessage& m) {
  std::vector<MessageFile> files;
  for (const dc::InboundAttachment& a : m.attachments) {
    files.push_back({typed_user_file(a.filename, a.content_type, a.size), a.url});
    if (m.voice) files.back().about.kind = "voice note";
  }
  return message_file_lines(files, kChannel, m.channel_id, m.id, files_root_, config_.max_download_bytes,
                            [this](const std::string& url, std::uint64_t max_bytes) {
                              return send_api_->download(url, max_bytes);
                            });
}

std::shared_ptr<agent::TurnObserver> DiscordService::task_observer(const store::ScheduledTask& task,
                                                                   const std::string& turn_id) {
  const std::string_view conversation = task.scope.conversation_id;
  if (!conversation.starts_with(kIdPrefix)) return nullptr;
  const std::string_view channel = conversation.substr(kIdPrefix.size());
  if (channel.empty() || channel.find_first_not_of("0123456789") != std::string_view::npos) return nullptr;
  dc::DiscordTarget target;
  target.channel_id = std::string(channel);
  target.nonce_seed = account_ + ":" + turn_id;
  auto observer = std::make_shared<ChannelTurn<dc::DiscordChannel>>(
      *send_api_, target, held_until_final(), std::chrono::seconds(8),
      [id = task.id, chat = target.channel_id](const agent::TurnSummary& summary,
                                               const deliver::DeliveryReport& report,
                                               const std::vector<std::string>& in_doubt) {
        log_channel_turn("discord-task", id, summary.turn_id, chat, summary, report, in_doubt);
      });
  observer->start_typing();
  return observer;
}

std::string DiscordService::metrics_text() const {
  const dc::RestStats rest = send_api_->stats();
  const dc::RestStats gw_rest = gateway_api_->stats();
  const dc::GatewayState gw = gateway_->state();
  std::string out = channel_metrics(kChannel, "rest", rest);
  ApiCounters gateway;
  gateway.calls = gw.connects + gw_rest.calls;
  gateway.retries = gw.resumes + (gw.identifies > 0 ? gw.identifies - 1 : 0);
  gateway.failures = gw.missed_acks + gw.invalid_sessions + gw_rest.failures;
  gateway.paced = gw_rest.paced;
  gateway.last_error = gw.last_error;
  if (gateway.last_error.empty()) gateway.last_error = gw_rest.last_error;
  out += channel_metrics(kChannel, "gateway", gateway);
  return out + channel_connected(kChannel, gw.connected);
}

std::string DiscordService::health_json() const {
  const dc::GatewayState gw = gateway_->state();
  const std::string state = gw.connected ? "connected" : gw.fatal ? "error" : "connecting";
  return channel_health_json(
      "gateway", state, !gw.last_error.empty() ? gw.last_error : send_api_->stats().last_error, inbound_);
}

std::string DiscordService::send_message(std::string_view channel, std::string_view text) {
  if (channel.empty() || channel.size() > 20 ||
      channel.find_first_not_of("0123456789") != std::string_view::npos)
    return "discord: the chat must be a Discord channel id (a snowflake, digits)";
  dc::DiscordChannel ch(*send_api_, dc::DiscordTarget{std::string(channel), {}, false, {}});
  for (const std::string& part : deliver::split_text(text, 2000, deliver::TextUnit::CodePoints)) {
    const deliver::ChannelResult r = ch.send_text(part);
    if (!r.ok()) return "discord: " + r.error();
  }
  return {};
}

}  // namespace sigil::app
