#include "app/whatsapp_service.h"

#include <boost/json/serialize.hpp>
#include <utility>

#include "app/channel_turn.h"
#include "app/json_record.h"
#include "app/user_files.h"
#include "sigil/channels/json_fields.h"
#include "sigil/channels/whatsapp/whatsapp_channel.h"
#include "sigil/log/log.h"

namespace sigil::app {
namespace {

namespace wa = channels::whatsapp;

constexpr std::string_view kChannel = "whatsapp";
// WhatsApp ids as sigil names them: user and conversation "wa-<wa_id>", turn "wa-<wamid as base64url>".
constexpr std::string_view kIdPrefix = "wa-";

using Message = wa::InboundMessage;
const JsonField<Message> kMessageFields[] = {{"id", &Message::id},
                                             {"from", &Message::from},
                                             {"name", &Message::name},
                                             {"type", &Message::type},
                                             {"text", &Message::text},
                                             {"timestamp", &Message::timestamp},
                                             {"context", &Message::context_id},
                                             {"phone_number_id", &Message::phone_number_id}};
const JsonField<wa::InboundMedia> kMediaFields[] = {{"id", &wa::InboundMedia::id},
                                                    {"mime_type", &wa::InboundMedia::mime_type},
                                                    {"filename", &wa::InboundMedia::filename},
                                                    {"voice", &wa::InboundMedia::voice}};

std::string payload_of(const Message& m) {
  boost::json::object o;
  write_fields(o, m, kMessageFields);
  if (m.media) {
    boost::json::object& media = o["media"].emplace_object();
    write_fields(media, *m.media, kMediaFields);
  }
  return boost::json::serialize(o);
}

std::optional<Message> message_of(const std::string& json) {
  const auto parsed = channels::parse_object(json);
  if (!parsed) return std::nullopt;
  Message m;
  read_fields(*parsed, m, kMessageFields);
  if (const auto* media = channels::object_at(*parsed, "media")) {
    m.media.emplace();
    read_fields(*media, *m.media, kMediaFields);
  }
  if (m.id.empty() || m.from.empty()) return std::nullopt;
  return m;
}

// A wamid (base64 after "wamid.") as a turn id and file name part can carry it: base64url, no padding.
std::string id_part(std::string_view wamid) {
  if (wamid.starts_with("wamid.")) wamid.remove_prefix(6);
  std::string out;
  for (char c : wamid) {
    if (c == '+')
      out += '-';
    else if (c == '/')
      out += '_';
    else if (c != '=')
      out += c;
  }
  return out;
}

bool is_wa_id(std::string_view s) {
  return s.size() >= 6 && s.size() <= 15 && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

WhatsAppService::WhatsAppService(const WhatsAppConfig& config, agent::Agent& agent, store::Store& store,
                                 std::filesystem::path files_root)
    : config_(config),
      agent_(agent),
      files_root_(std::move(files_root)),
      io_(std::make_shared<net::IoThreads>(1)),
      inbound_(store, std::string(kChannel), config.phone_number_id, "message") {
  http_ = std::make_unique<net::HttpClient>(io_);
  wa::GraphOptions o;
  o.request_timeout = std::chrono::seconds(config_.request_timeout_seconds);
  api_ = std::make_unique<wa::GraphApi>(*http_, config_.api_url, config_.access_token,
                                        config_.phone_number_id, o);
  receiver_ = std::make_unique<wa::WebhookReceiver>(
      wa::WebhookOptions{
          config_.app_secret, config_.verify_token, {config_.phone_number_id, config_.allowed_users}},
      [this](const Message& m) { return on_message(m); });
}

WhatsAppService::~WhatsAppService() {
  stop_receiving();
  api_->stop();
}

void WhatsAppService::start() {
  inbound_.resume_pending([this](const std::string& json) {
    const std::optional<Message> m = message_of(json);
    return m && run_turn(*m);
  });
  started_.store(true);
}

void WhatsAppService::stop_receiving() {
  stopped_.store(true);
  if (receiver_) receiver_->stop();
}

wa::WebhookReply WhatsAppService::verify_webhook(std::string_view query) { return receiver_->verify(query); }

wa::WebhookReply WhatsAppService::receive_webhook(std::string_view signature, std::string_view body) {
  // Before start() the pending turns have not been resumed: Meta keeps the post and sends it again.
  if (!started_.load() && !stopped_.load() && wa::signature_matches(config_.app_secret, signature, body))
    return {503, "starting"};
  return receiver_->receive(signature, body);
}

bool WhatsAppService::on_message(const Message& m) {
  // False (the store failed): the POST is answered 500, Meta posts it again.
  return inbound_.handle(m.id, payload_of(m), [&] { (void)run_turn(m); });
}

bool WhatsAppService::run_turn(const Message& m) {
  const std::string turn_id = std::string(kIdPrefix) + id_part(m.id);
  auto observer = inbound_turn<wa::WhatsAppChannel>(inbound_, *api_, wa::WhatsAppTarget{m.from, m.id},
                                                    held_until_final(m.id), std::chrono::seconds(20), m.id,
                                                    turn_id, m.from);
  // The read receipt with the typing indicator (WhatsApp shows it up to 25 s, or until the answer).
  observer->start_typing();
  agent::TurnInput in;
  in.user = std::string(kIdPrefix) + m.from;
  in.conversation = std::string(kIdPrefix) + m.from;
  in.text = m.text;
  if (m.media) {
    // Downloaded here, after the message was recorded: a crash meanwhile resumes the turn, which downloads
    // it again to the same name.
    UserFile about = typed_user_file(m.media->filename, m.media->mime_type, 0);
    if (m.type == "audio" && m.media->voice) about.kind = "voice note";
    if (m.type == "sticker") about.kind = "sticker";
    const std::string lines = message_file_lines(
        {MessageFile{about, m.media->id}}, kChannel, m.from, id_part(m.id), files_root_,
        config_.max_download_bytes, [this](const std::string& media_id, std::uint64_t max_bytes) {
          return api_->download(media_id, max_bytes);
        });
    in.text = in.text.empty() ? lines : in.text + "\n\n" + lines;
  }
  in.message_id = m.id;
  in.turn_id = turn_id;
  agent_.start_turn(std::move(in), std::move(observer));
  return true;
}

std::shared_ptr<agent::TurnObserver> WhatsAppService::task_observer(const store::ScheduledTask& task,
                                                                    const std::string& turn_id) {
  const std::string_view conversation = task.scope.conversation_id;
  if (!conversation.starts_with(kIdPrefix)) return nullptr;
  const std::string_view to = conversation.substr(kIdPrefix.size());
  if (!is_wa_id(to)) return nullptr;
  return std::make_shared<ChannelTurn<wa::WhatsAppChannel>>(
      *api_, wa::WhatsAppTarget{std::string(to), {}}, held_until_final(), std::chrono::seconds(20),
      [id = task.id, turn_id, chat = std::string(to)](const agent::TurnSummary& summary,
                                                      const deliver::DeliveryReport& report,
                                                      const std::vector<std::string>& in_doubt) {
        log_channel_turn("whatsapp-task", id, turn_id, chat, summary, report, in_doubt);
      });
}

std::string WhatsAppService::send_message(std::string_view to, std::string_view text) {
  const std::string wa_id = wa::wa_id_of(to);
  if (!is_wa_id(wa_id)) return "whatsapp: the chat must be the user's phone number (wa_id, e.g. 16505551234)";
  wa::WhatsAppChannel ch(*api_, wa::WhatsAppTarget{wa_id, {}});
  const deliver::ChannelResult r = ch.send_text(text);
  if (!r.ok()) return "whatsapp: " + r.error();
  return {};
}

std::string WhatsAppService::metrics_text() const {
  const wa::ReceiverStats s = receiver_->stats();
  std::string out = channel_metrics(kChannel, "graph", api_->stats());
  ApiCounters hook;
  hook.calls = s.posts + s.refused;
  hook.failures = s.refused + s.failed_statuses;
  if (s.failed_statuses > 0)
    hook.last_error = "a message WhatsApp could not deliver (see whatsapp-status-failed)";
  if (s.refused > 0) hook.last_error = "a webhook post with a bad or missing X-Hub-Signature-256";
  out += channel_metrics(kChannel, "webhook", hook);
  return out + channel_connected(kChannel, s.verified || s.posts > 0);
}

std::string WhatsAppService::health_json() const {
  const wa::ReceiverStats s = receiver_->stats();
  const std::string state = stopped_.load() ? "stopped" : s.verified || s.posts > 0 ? "verified" : "waiting";
  return channel_health_json("webhook", state, api_->stats().last_error, inbound_);
}

}  // namespace sigil::app
