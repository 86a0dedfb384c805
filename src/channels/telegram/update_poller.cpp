#include "sigil/channels/telegram/update_poller.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <cctype>
#include <condition_variable>
#include <utility>

#include "channels/pause.h"
#include "channels/telegram/call_until_ok.h"
#include "sigil/channels/json_fields.h"
#include "sigil/log/log.h"
#include "sigil/text/ascii.h"
#include "sigil/text/enum_names.h"

namespace sigil::channels::telegram {
namespace {

bool mentions(std::string_view text, std::string_view username) {
  if (username.empty()) return false;
  const std::string at = "@" + std::string(username);
  for (std::size_t i = 0; i + at.size() <= text.size(); ++i) {
    if (!text::ascii::iequals(text.substr(i, at.size()), at)) continue;
    // "@sigil_bot" but not "@sigil_bot2": a username ends at a character that cannot be part of one.
    const std::size_t end = i + at.size();
    if (end == text.size()) return true;
    const char c = text[end];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return true;
  }
  return false;
}

std::optional<InboundFile> read_file(const boost::json::object& m) {
  InboundFile f;
  if (const auto* photo = m.if_contains("photo"); photo != nullptr && photo->is_array()) {
    // Telegram lists a photo's sizes smallest first: the last one is the original.
    const auto& sizes = photo->as_array();
    if (sizes.empty() || !sizes.back().is_object()) return std::nullopt;
    f.kind = "photo";
    f.file_id = string_at(sizes.back().as_object(), "file_id");
    f.size = int_at(sizes.back().as_object(), "file_size");
  } else {
    for (const char* kind : {"document", "voice", "audio", "video"}) {
      const auto* o = object_at(m, kind);
      if (o == nullptr) continue;
      f.kind = kind;
      f.file_id = string_at(*o, "file_id");
      f.name = string_at(*o, "file_name");
      f.mime_type = string_at(*o, "mime_type");
      f.size = int_at(*o, "file_size");
      break;
    }
  }
  if (f.file_id.empty()) return std::nullopt;
  return f;
}

void log_warn(std::string event, std::string error) {
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, std::move(event), {}}.with("error", std::move(error)));
}

}  // namespace

std::optional<InboundMessage> read_update(const boost::json::object& update) {
  const boost::json::object* m = object_at(update, "message");
  if (m == nullptr) return std::nullopt;
  InboundMessage msg;
  msg.update_id = int_at(update, "update_id");
  msg.message_id = int_at(*m, "message_id");
  if (bool_at(*m, "is_topic_message")) msg.thread_id = int_at(*m, "message_thread_id");
  if (const auto* chat = object_at(*m, "chat")) {
    msg.chat_id = int_at(*chat, "id");
    msg.chat_type = string_at(*chat, "type");
  }
  if (const auto* from = object_at(*m, "from")) {
    msg.from_id = int_at(*from, "id");
    msg.from_name = string_at(*from, "first_name");
  }
  msg.text = string_at(*m, "text");
  if (msg.text.empty()) msg.text = string_at(*m, "caption");
  if (const auto* reply = object_at(*m, "reply_to_message"))
    if (const auto* from = object_at(*reply, "from")) msg.reply_to_from = int_at(*from, "id");
  msg.file = read_file(*m);
  msg.media_group_id = string_at(*m, "media_group_id");
  return msg;
}

namespace {
constexpr text::EnumNames<Verdict::FromBot> kVerdictNames{
    {"admitted", "no text", "sender not in allowed_users", "group message not addressed to the bot",
     "sent by a bot"},
    "unknown"};
}  // namespace

std::string_view to_string(Verdict verdict) { return kVerdictNames.name(verdict); }

Verdict admit(const InboundMessage& message, const AdmitPolicy& policy, bool from_bot) {
  if (from_bot) return Verdict::FromBot;
  if (message.from_id == 0 || message.chat_id == 0) return Verdict::NoText;
  if (!policy.allowed_users.empty() && std::find(policy.allowed_users.begin(), policy.allowed_users.end(),
                                                 message.from_id) == policy.allowed_users.end())
    return Verdict::NotAllowed;
  if (message.text.empty() && !message.file) return Verdict::NoText;
  if (message.chat_type != "private") {
    const bool replied_to_bot = policy.bot_id != 0 && message.reply_to_from == policy.bot_id;
    if (!replied_to_bot && !mentions(message.text, policy.bot_username)) return Verdict::NotAddressed;
  }
  return Verdict::Admitted;
}

ClassifiedUpdate classify_update(const boost::json::object& update, const AdmitPolicy& policy) {
  ClassifiedUpdate out;
  out.update_id = int_at(update, "update_id");
  out.message = read_update(update);
  if (!out.message) return out;
  bool from_bot = false;
  if (const auto* m = object_at(update, "message"))
    if (const auto* from = object_at(*m, "from"))
      if (const auto* b = from->if_contains("is_bot"); b != nullptr && b->is_bool()) from_bot = b->as_bool();
  out.verdict = admit(*out.message, policy, from_bot);
  return out;
}

std::optional<AdmitPolicy> learn_bot_identity(BotApi& api, const std::stop_token& stop,
                                              std::vector<std::int64_t> allowed_users) {
  const ApiOutcome me = call_until_ok(api, "getMe", boost::json::object{}, stop, "telegram-getme-failed");
  if (!me.ok() || !me.result.is_object()) return std::nullopt;
  AdmitPolicy policy;
  policy.allowed_users = std::move(allowed_users);
  policy.bot_id = int_at(me.result.as_object(), "id");
  policy.bot_username = string_at(me.result.as_object(), "username");
  if (log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, "telegram-ready", {}}.with("bot", "@" + policy.bot_username));
  return policy;
}

UpdatePoller::UpdatePoller(BotApi& api, PollerOptions options, OnUpdate on_update)
    : api_(api), options_(std::move(options)), on_update_(std::move(on_update)) {
  policy_.allowed_users = options_.allowed_users;
}

UpdatePoller::~UpdatePoller() { stop(); }

void UpdatePoller::start() {
  thread_.start([this](const std::stop_token& stop) { run(stop); });
}

void UpdatePoller::stop() { thread_.stop(); }

std::string UpdatePoller::bot_username() const {
  std::lock_guard lock(mu_);
  return policy_.bot_username;
}

void UpdatePoller::run(const std::stop_token& stop) {
  std::chrono::milliseconds backoff{1000};
  const auto grow = [&] {
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(30));
  };
  // getMe: the bot's own id and @username (group messages are admitted by mention).
  std::optional<AdmitPolicy> identity = learn_bot_identity(api_, stop, options_.allowed_users);
  if (!identity) return;
  {
    std::lock_guard lock(mu_);
    policy_ = std::move(*identity);
  }
  // Back from webhook mode: Telegram refuses getUpdates while a webhook is set.
  if (!call_until_ok(api_, "deleteWebhook", boost::json::object{{"drop_pending_updates", false}}, stop,
                     "telegram-delete-webhook-failed")
           .ok())
    return;

  std::int64_t offset = 0;
  const auto poll_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options_.poll_timeout);
  while (!stop.stop_requested()) {
    boost::json::object p;
    if (offset > 0) p["offset"] = offset;
    p["timeout"] = static_cast<std::int64_t>(options_.poll_timeout.count());
    p["allowed_updates"] = boost::json::array{"message"};
    const ApiOutcome got = api_.call("getUpdates", p, poll_timeout + std::chrono::seconds(15));
    if (stop.stop_requested()) return;
    polling_.store(got.ok() && got.result.is_array());
    if (!got.ok() || !got.result.is_array()) {
      log_warn(got.error_code == 409 ? "telegram-conflict" : "telegram-poll-failed", got.summary());
      if (!pause_unless_stopped(stop, backoff)) return;
      grow();
      continue;
    }
    backoff = std::chrono::milliseconds(1000);
    AdmitPolicy policy;
    {
      std::lock_guard lock(mu_);
      policy = policy_;
    }
    for (const boost::json::value& u : got.result.as_array()) {
      if (!u.is_object()) continue;
      const std::int64_t id = int_at(u.as_object(), "update_id");
      if (id < offset) continue;  // confirmed already (a stale answer)
      const ClassifiedUpdate c = classify_update(u.as_object(), policy);
      if (!on_update_(id, c.message, c.verdict)) {
        // Not recorded: not confirmed either; Telegram sends it again with the next poll.
        if (!pause_unless_stopped(stop, backoff)) return;
        grow();
        break;
      }
      offset = id + 1;
    }
  }
}

}  // namespace sigil::channels::telegram
