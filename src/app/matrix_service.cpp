#include "app/matrix_service.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <fstream>
#include <sstream>
#include <utility>

#include "app/channel_turn.h"
#include "app/json_record.h"
#include "app/user_files.h"
#include "sigil/channels/json_fields.h"
#include "sigil/channels/matrix/matrix_channel.h"
#include "sigil/log/log.h"

namespace sigil::app {
namespace {

namespace mx = channels::matrix;

constexpr std::string_view kChannel = "matrix";
// Matrix ids as sigil names them: user "mx-<user id>", conversation "mx-<room id>", turn
// "mx-<event id without its $>" (event ids are unique across rooms).
constexpr std::string_view kIdPrefix = "mx-";

// What a user sees in an encrypted room: sigil cannot read it, and says so once.
constexpr std::string_view kEncryptedNotice =
    "I can't read this: the room is end-to-end encrypted, and sigil does not support encrypted rooms. "
    "Write to me in an unencrypted room (a new room with encryption turned off when you create it).";

using Event = mx::InboundEvent;
const JsonField<Event> kEventFields[] = {{"room", &Event::room},
                                         {"event_id", &Event::event_id},
                                         {"sender", &Event::sender},
                                         {"type", &Event::type},
                                         {"msgtype", &Event::msgtype},
                                         {"body", &Event::body},
                                         {"relation", &Event::relation},
                                         {"reply", &Event::reply},
                                         {"url", &Event::url},
                                         {"filename", &Event::filename},
                                         {"mimetype", &Event::mimetype},
                                         {"size", &Event::size},
                                         {"ts", &Event::ts},
                                         {"room_members", &Event::room_members}};

std::string payload_of(const Event& e) { return record_json(e, kEventFields); }

std::optional<Event> event_of(const std::string& json) {
  auto e = read_record(json, kEventFields);
  if (!e || e->room.empty() || e->event_id.empty()) return std::nullopt;
  return e;
}

bool is_room_id(std::string_view s) {
  return s.size() >= 4 && s.size() <= 255 && s.front() == '!' && s.find(':') != std::string_view::npos &&
         s.find_first_of(" /\t\n") == std::string_view::npos;
}

// A room or event id as a folder or file name part: letters, digits, '.', '-' and '_' kept, others '_'.
std::string path_part(std::string_view id) {
  std::string out;
  for (char c : id) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '-' || c == '_';
    out += plain ? c : '_';
  }
  return out;
}

// Text held until final (Synapse's default pace is one event every 5 s after a burst), and a failed send
// made once more: MatrixChannel sends it again under the same txnId, which the homeserver deduplicates.
deliver::ChatOutboxOptions matrix_outbox(std::string reply_to = {}) {
  deliver::ChatOutboxOptions options = held_until_final(std::move(reply_to));
  options.repeat_failed_sends = true;
  return options;
}

std::string turn_id_of(const Event& e) {
  return std::string(kIdPrefix) + (e.event_id.front() == '$' ? e.event_id.substr(1) : e.event_id);
}

}  // namespace

MatrixService::MatrixService(const MatrixConfig& config, agent::Agent& agent, store::Store& store,
                             std::filesystem::path sync_file, std::filesystem::path files_root)
    : config_(config),
      agent_(agent),
      store_(store),
      sync_file_(std::move(sync_file)),
      files_root_(std::move(files_root)),
      io_(std::make_shared<net::IoThreads>(1)),
      // The account keys the store's records: the bot's user id, else its homeserver (one bot there).
      inbound_(store, std::string(kChannel), !config.user_id.empty() ? config.user_id : config.homeserver_url,
               "event") {
  http_ = std::make_unique<net::HttpClient>(io_);
  mx::ApiOptions ao;
  ao.request_timeout = std::chrono::seconds(config_.request_timeout_seconds);
  send_api_ = std::make_unique<mx::ClientApi>(*http_, config_.homeserver_url, config_.access_token, ao);
  sync_api_ = std::make_unique<mx::ClientApi>(*http_, config_.homeserver_url, config_.access_token, ao);
  mx::SyncOptions so;
  so.user_id = config_.user_id;
  so.policy.allowed_users = config_.allowed_users;
  mx::SyncLoop::Callbacks cb;
  cb.on_events = [this](const std::vector<Event>& events) { return on_events(events); };
  cb.seen = [this](const std::string& id) {
    std::lock_guard lock(mu_);
    return recorded_.count(id) > 0;
  };
  cb.load_since = [this] { return load_since(); };
  cb.save_since = [this](const std::string& token) { return save_since(token); };
  sync_ = std::make_unique<mx::SyncLoop>(*sync_api_, so, std::move(cb));
}

MatrixService::~MatrixService() {
  stop_receiving();
  send_api_->stop();
}

void MatrixService::start() {
  inbound_.resume_pending([this](const std::string& json) {
    const std::optional<Event> e = event_of(json);
    if (!e) return false;
    if (e->encrypted()) {
      encrypted_notice(*e);
      return true;
    }
    return run_turn(*e);
  });
  sync_->start();
}

void MatrixService::stop_receiving() {
  if (sync_) sync_->stop();
}

std::string MatrixService::load_since() const {
  std::ifstream in(sync_file_);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  const auto parsed = channels::parse_object(text.str());
  // A token of another homeserver or account means nothing here: a fresh start.
  if (!parsed || channels::string_at(*parsed, "homeserver") != config_.homeserver_url) return {};
  return channels::string_at(*parsed, "next_batch");
}

bool MatrixService::save_since(const std::string& token) {
  // Written whole and flushed to disk, then renamed: a crash keeps the old token or the new one.
  const std::string tmp = sync_file_.string() + ".tmp";
  const std::string text = boost::json::serialize(
      boost::json::object{{"homeserver", config_.homeserver_url}, {"next_batch", token}});
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool written =
      ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  std::error_code ec;
  if (written) std::filesystem::rename(tmp, sync_file_, ec);
  return written && !ec;
}

bool MatrixService::on_events(const std::vector<Event>& events) {
  mx::AdmitPolicy policy;
  policy.allowed_users = config_.allowed_users;
  policy.bot_user = sync_->bot_user();
  policy.bot_name = sync_->bot_name();
  for (const Event& e : events) {
    const mx::Verdict verdict = mx::admit(e, policy);
    if (verdict != mx::Verdict::Admitted && verdict != mx::Verdict::Encrypted) {
      // The bot's own events come back in every sync: not worth a log line each.
      if (verdict != mx::Verdict::Own && log::enabled(log::Level::info))
        log::write(log::Record{log::Level::info, "matrix-ignored", {}}
                       .with("event", e.event_id)
                       .with("room", e.room)
                       .with("why", std::string(mx::to_string(verdict)))
                       .with("from", e.sender));
      continue;
    }
    // False (the store failed): the batch's token is not kept, the batch comes again.
    const bool ok = inbound_.handle(e.event_id, payload_of(e), [&] {
      if (verdict == mx::Verdict::Encrypted)
        encrypted_notice(e);
      else
        (void)run_turn(e);
    });
    if (!ok) return false;
    std::lock_guard lock(mu_);
    recorded_.insert(e.event_id);
  }
  return true;
}

void MatrixService::encrypted_notice(const Event& e) {
  bool tell = true;
  if (!e.direct()) {
    std::lock_guard lock(mu_);
    tell = noticed_rooms_.insert(e.room).second;
  }
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, "matrix-encrypted", {}}
                   .with("event", e.event_id)
                   .with("room", e.room)
                   .with("from", e.sender)
                   .with("answered", tell ? "with a notice" : "no (the room was told already)"));
  if (tell) {
    mx::MatrixTarget target{e.room, e.event_id, turn_id_of(e), {}, true};
    mx::MatrixChannel ch(*send_api_, target);
    const deliver::ChannelResult r = ch.send_text(kEncryptedNotice);
    if (!r.ok() && log::enabled(log::Level::warn))
      log::write(log::Record{log::Level::warn, "matrix-encrypted-notice-failed", {}}
                     .with("room", e.room)
                     .with("error", r.error()));
  }
  inbound_.finish(e.event_id);
}

bool MatrixService::run_turn(const Event& e) {
  const std::string turn_id = turn_id_of(e);
  std::string bot = sync_->bot_user();
  if (bot.empty()) bot = config_.user_id;
  mx::MatrixTarget target{e.room, e.event_id, turn_id, bot, false};
  auto observer = inbound_turn<mx::MatrixChannel>(inbound_, *send_api_, target, matrix_outbox(e.event_id),
                                                  std::chrono::seconds(8), e.event_id, turn_id, e.room);
  observer->start_typing();
  agent::TurnInput in;
  in.user = std::string(kIdPrefix) + e.sender;
  in.conversation = std::string(kIdPrefix) + e.room;
  in.text = mx::readable_text(e);
  if (e.has_file()) {
    // Downloaded here, after the event was recorded: a crash meanwhile resumes the turn, which downloads it
    // again to the same name.
    const std::string lines = keep_files(e);
    in.text = in.text.empty() ? lines : in.text + "\n\n" + lines;
  }
  in.message_id = e.event_id;
  in.turn_id = turn_id;
  agent_.start_turn(std::move(in), std::move(observer));
  return true;
}

std::string MatrixService::keep_files(const Event& e) {
  std::vector<MessageFile> files{{typed_user_file(e.filename, e.mimetype, e.size), e.url}};
  if (e.msgtype == "m.audio") files.back().about.kind = "audio file";
  return message_file_lines(files, kChannel, path_part(e.room), path_part(e.event_id), files_root_,
                            config_.max_download_bytes,
                            [this](const std::string& url, std::uint64_t max_bytes) {
                              return send_api_->download(url, max_bytes);
                            });
}

std::shared_ptr<agent::TurnObserver> MatrixService::task_observer(const store::ScheduledTask& task,
                                                                  const std::string& turn_id) {
  const std::string_view conversation = task.scope.conversation_id;
  if (!conversation.starts_with(kIdPrefix)) return nullptr;
  const std::string_view room = conversation.substr(kIdPrefix.size());
  if (!is_room_id(room)) return nullptr;
  mx::MatrixTarget target{std::string(room), {}, turn_id, sync_->bot_user(), false};
  auto observer = std::make_shared<ChannelTurn<mx::MatrixChannel>>(
      *send_api_, target, matrix_outbox(), std::chrono::seconds(8),
      [id = task.id, turn_id, chat = target.room](const agent::TurnSummary& summary,
                                                  const deliver::DeliveryReport& report,
                                                  const std::vector<std::string>& in_doubt) {
        log_channel_turn("matrix-task", id, turn_id, chat, summary, report, in_doubt);
      });
  observer->start_typing();
  return observer;
}

std::string MatrixService::metrics_text() const {
  const mx::ApiStats client = send_api_->stats();
  const mx::ApiStats sync = sync_api_->stats();
  const mx::SyncState s = sync_->state();
  std::string out = channel_metrics(kChannel, "client", client);
  ApiCounters loop = sync;
  loop.failures = sync.failures + s.unrecorded;
  if (!s.last_error.empty()) loop.last_error = s.last_error;
  out += channel_metrics(kChannel, "sync", loop);
  return out + channel_connected(kChannel, s.connected);
}

std::string MatrixService::health_json() const {
  const mx::SyncState s = sync_->state();
  const std::string state = s.connected ? "connected" : s.fatal ? "error" : "connecting";
  std::string error = s.last_error;
  if (error.empty()) error = send_api_->stats().last_error;
  return channel_health_json("sync", state, error, inbound_);
}

std::string MatrixService::send_message(std::string_view room, std::string_view text) {
  if (!is_room_id(room))
    return "matrix: the chat must be a Matrix room id (!…:server, from the room's settings)";
  mx::MatrixChannel ch(*send_api_, mx::MatrixTarget{std::string(room), {}, {}, {}, false});
  const deliver::ChannelResult r = ch.send_text(text);
  if (!r.ok()) return "matrix: " + r.error();
  return {};
}

}  // namespace sigil::app
