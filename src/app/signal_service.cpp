#include "app/signal_service.h"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

#include "app/channel_turn.h"
#include "app/json_record.h"
#include "app/user_files.h"
#include "sigil/channels/json_fields.h"
#include "sigil/channels/signal/signal_channel.h"
#include "sigil/log/log.h"
#include "sigil/text/base64.h"

namespace sigil::app {
namespace {

namespace sg = channels::signal;

constexpr std::string_view kChannel = "signal";
// Signal ids as sigil names them: user "sg-<sender>", conversation "sg-<sender or group id>", turn
// "<conversation>-<timestamp>".
constexpr std::string_view kIdPrefix = "sg-";

using Message = sg::SignalMessage;
using Attachment = sg::SignalAttachment;
const JsonField<Message> kMessageFields[] = {{"source_number", &Message::source_number},
                                             {"source_uuid", &Message::source_uuid},
                                             {"source_name", &Message::source_name},
                                             {"timestamp", &Message::timestamp},
                                             {"text", &Message::text},
                                             {"group_id", &Message::group_id}};
const JsonField<Attachment> kAttachmentFields[] = {{"id", &Attachment::id},
                                                   {"content_type", &Attachment::content_type},
                                                   {"filename", &Attachment::filename},
                                                   {"size", &Attachment::size}};

std::string payload_of(const Message& m) {
  return record_json(m, kMessageFields, [&](boost::json::object& o) {
    write_list(o, "attachments", m.attachments, kAttachmentFields);
  });
}

std::optional<Message> message_of(const std::string& json) {
  auto m = read_record(json, kMessageFields, [](const boost::json::object& o, Message& r) {
    read_list(o, "attachments", r.attachments, kAttachmentFields);
  });
  if (!m || m->sender().empty() || m->timestamp <= 0) return std::nullopt;
  return m;
}

std::string chat_of(const Message& m) { return m.group_id.empty() ? m.sender() : m.group_id; }

}  // namespace

SignalService::SignalService(const SignalConfig& config, agent::Agent& agent, store::Store& store,
                             std::filesystem::path files_root)
    : config_(config),
      agent_(agent),
      store_(store),
      files_root_(std::move(files_root)),
      io_(std::make_shared<net::IoThreads>(1)),
      inbound_(store, std::string(kChannel), config.account, "message") {
  http_ = std::make_unique<net::HttpClient>(io_);
  sg::RpcOptions ro;
  ro.request_timeout = std::chrono::seconds(config_.request_timeout_seconds);
  api_ = std::make_unique<sg::RpcApi>(*http_, config_.rpc_url, ro);
  sg::EventStreamOptions eo;
  eo.silence_limit = std::chrono::seconds(config_.silence_seconds);
  events_ = std::make_unique<sg::EventStream>(
      *http_, config_.rpc_url, [this](const boost::json::object& event) { on_event(event); }, eo);
}

SignalService::~SignalService() {
  stop_receiving();
  api_->stop();
}

void SignalService::start() {
  inbound_.resume_pending([this](const std::string& json) {
    const std::optional<Message> m = message_of(json);
    return m && run_turn(*m);
  });
  events_->start();
}

void SignalService::stop_receiving() {
  if (events_) events_->stop();
}

void SignalService::on_event(const boost::json::object& event) {
  const std::optional<Message> m = sg::parse_message(event, config_.account);
  if (!m) return;  // receipts, typing, reactions, the account's own messages: nothing to answer
  if (!sg::answered(*m, config_.allowed_users, config_.allowed_groups)) {
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "signal-ignored", {}}
                     .with("message", m->key())
                     .with("why", m->group_id.empty() ? "sender not in allowed_users"
                                  : m->mentions_bot   ? "group not in allowed_groups"
                                                      : "group message without a mention")
                     .with("group", m->group_id));
    return;
  }
  // Recorded before anything else; a Duplicate starts nothing. There is nothing to confirm to signal-cli,
  // so a store failure (logged by ChannelInbound) cannot be made good by a redelivery.
  (void)inbound_.handle(m->key(), payload_of(*m), [&] { (void)run_turn(*m); });
}

sg::SignalTarget SignalService::target_for(std::string_view chat) const {
  sg::SignalTarget t;
  if (sg::is_signal_group(chat))
    t.group_id = std::string(chat);
  else
    t.recipient = std::string(chat);
  t.account = config_.account;
  return t;
}

bool SignalService::run_turn(const Message& m) {
  const std::string chat = chat_of(m);
  const std::string conversation = std::string(kIdPrefix) + chat;
  const std::string turn_id = conversation + "-" + std::to_string(m.timestamp);
  sg::SignalTarget target = target_for(chat);
  target.answering = m.timestamp;
  target.answering_author = m.sender();
  auto observer = inbound_turn<sg::SignalChannel>(inbound_, *api_, target, held_until_final(m.key()),
                                                  std::chrono::seconds(10), m.key(), turn_id, chat);
  observer->start_typing();
  agent::TurnInput in;
  in.user = std::string(kIdPrefix) + m.sender();
  in.conversation = conversation;
  in.text = m.text;
  if (!m.attachments.empty()) {
    // Fetched here, after the message was recorded: a crash meanwhile resumes the turn, which fetches them
    // again to the same names.
    const std::string lines = keep_files(m, chat);
    in.text = in.text.empty() ? lines : in.text + "\n\n" + lines;
  }
  in.message_id = m.key();  // "<sender>/<timestamp>": a reaction to it needs its author too
  in.turn_id = turn_id;
  agent_.start_turn(std::move(in), std::move(observer));
  return true;
}

std::string SignalService::keep_files(const Message& m, const std::string& chat) {
  std::vector<MessageFile> files;
  for (const Attachment& a : m.attachments)
    files.push_back({typed_user_file(a.filename, a.content_type, a.size), a.id});
  // The chat's directory name: a group id's '/' and '+' are no path characters.
  std::string dir = chat;
  for (char& c : dir)
    if (c == '/' || c == '+' || c == '=') c = '_';
  return message_file_lines(
      files, kChannel, dir, std::to_string(m.timestamp), files_root_, config_.max_download_bytes,
      [this, &m](const std::string& id, std::uint64_t max_bytes) -> Result<std::string, net::DownloadError> {
        boost::json::object p{{"id", id}};
        if (m.group_id.empty())
          p["recipient"] = m.sender();
        else
          p["groupId"] = m.group_id;
        const sg::RpcOutcome o = api_->call("getAttachment", std::move(p), true);
        if (!o.ok()) return Failure{net::DownloadError{false, "getAttachment: " + o.summary()}};
        const std::string data =
            o.result.is_object() ? channels::string_at(o.result.as_object(), "data") : "";
        auto bytes = text::base64_decode(data);
        if (!bytes) return Failure{net::DownloadError{false, "getAttachment: not base64"}};
        if (bytes->size() > max_bytes) return Failure{net::DownloadError{true, "larger than the limit"}};
        return std::move(*bytes);
      });
}

std::shared_ptr<agent::TurnObserver> SignalService::task_observer(const store::ScheduledTask& task,
                                                                  const std::string& turn_id) {
  const std::string_view conversation = task.scope.conversation_id;
  if (!conversation.starts_with(kIdPrefix)) return nullptr;
  const std::string_view chat = conversation.substr(kIdPrefix.size());
  if (!sg::is_signal_user(chat) && !sg::is_signal_group(chat)) return nullptr;
  return std::make_shared<ChannelTurn<sg::SignalChannel>>(
      *api_, target_for(chat), held_until_final(), std::chrono::seconds(10),
      [id = task.id, turn_id, chat = std::string(chat)](const agent::TurnSummary& summary,
                                                        const deliver::DeliveryReport& report,
                                                        const std::vector<std::string>& in_doubt) {
        log_channel_turn("signal-task", id, turn_id, chat, summary, report, in_doubt);
      });
}

std::string SignalService::metrics_text() const {
  const sg::EventStreamStats s = events_->stats();
  std::string out = channel_metrics(kChannel, "rpc", api_->stats());
  ApiCounters events;
  events.calls = s.connects;
  events.retries = s.drops + s.silent_restarts;
  events.failures = s.daemon_down;
  events.last_error = s.last_error;
  out += channel_metrics(kChannel, "events", events);
  return out + channel_connected(kChannel, s.connected);
}

std::string SignalService::health_json() const {
  const sg::EventStreamStats s = events_->stats();
  std::string error = s.last_error;
  if (error.empty()) error = api_->stats().last_error;
  return channel_health_json("sse", s.connected ? "connected" : "connecting", error, inbound_);
}

std::string SignalService::send_message(std::string_view chat, std::string_view text) {
  if (!sg::is_signal_user(chat) && !sg::is_signal_group(chat))
    return "signal: the chat must be a number in E.164 (+15551234567), an ACI or a group id (base64)";
  sg::SignalChannel ch(*api_, target_for(chat));
  const deliver::ChannelResult r = ch.send_text(text);
  if (!r.ok()) return "signal: " + r.error();
  return {};
}

}  // namespace sigil::app
