#include "sigil/channels/telegram/update_poller.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <cctype>
#include <condition_variable>
#include <utility>

#include "channels/json_fields.h"
#include "sigil/log/log.h"
#include "sigil/text/ascii.h"

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
  return msg;
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Admitted:
      return "admitted";
    case Verdict::NoText:
      return "no text";
    case Verdict::NotAllowed:
      return "sender not in allowed_users";
    case Verdict::NotAddressed:
      return "group message not addressed to the bot";
    case Verdict::FromBot:
      return "sent by a bot";
  }
  return "unknown";
}

Verdict admit(const InboundMessage& message, const AdmitPolicy& policy, bool from_bot) {
  if (from_bot) return Verdict::FromBot;
  if (message.from_id == 0 || message.chat_id == 0) return Verdict::NoText;
  if (!policy.allowed_users.empty() && std::find(policy.allowed_users.begin(), policy.allowed_users.end(),
                                                 message.from_id) == policy.allowed_users.end())
    return Verdict::NotAllowed;
  if (message.text.empty()) return Verdict::NoText;
  if (message.chat_type != "private") {
    const bool replied_to_bot = policy.bot_id != 0 && message.reply_to_from == policy.bot_id;
    if (!replied_to_bot && !mentions(message.text, policy.bot_username)) return Verdict::NotAddressed;
  }
  return Verdict::Admitted;
}

UpdatePoller::UpdatePoller(BotApi& api, PollerOptions options, OnUpdate on_update)
    : api_(api), options_(std::move(options)), on_update_(std::move(on_update)) {
  policy_.allowed_users = options_.allowed_users;
}

UpdatePoller::~UpdatePoller() { stop(); }

void UpdatePoller::start() {
  thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

void UpdatePoller::stop() {
  api_.stop();
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

std::string UpdatePoller::bot_username() const {
  std::lock_guard lock(mu_);
  return policy_.bot_username;
}

bool UpdatePoller::wait(const std::stop_token& stop, std::chrono::milliseconds how_long) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  return !cv.wait_for(lock, stop, how_long, [] { return false; }) && !stop.stop_requested();
}

void UpdatePoller::run(const std::stop_token& stop) {
  std::chrono::milliseconds backoff{1000};
  const auto grow = [&] {
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(30));
  };
  // getMe: the bot's own id and @username (group messages are admitted by mention).
  while (!stop.stop_requested()) {
    const ApiOutcome me = api_.call("getMe", boost::json::object{});
    if (me.ok() && me.result.is_object()) {
      std::lock_guard lock(mu_);
      policy_.bot_id = int_at(me.result.as_object(), "id");
      policy_.bot_username = string_at(me.result.as_object(), "username");
      if (log::enabled(log::Level::info))
        log::write(
            log::Record{log::Level::info, "telegram-ready", {}}.with("bot", "@" + policy_.bot_username));
      break;
    }
    if (stop.stop_requested()) return;
    log_warn("telegram-getme-failed", me.summary());
    if (!wait(stop, backoff)) return;
    grow();
  }
  backoff = std::chrono::milliseconds(1000);

  std::int64_t offset = 0;
  const auto poll_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options_.poll_timeout);
  while (!stop.stop_requested()) {
    boost::json::object p;
    if (offset > 0) p["offset"] = offset;
    p["timeout"] = static_cast<std::int64_t>(options_.poll_timeout.count());
    p["allowed_updates"] = boost::json::array{"message"};
    const ApiOutcome got = api_.call("getUpdates", p, poll_timeout + std::chrono::seconds(15));
    if (stop.stop_requested()) return;
    if (!got.ok() || !got.result.is_array()) {
      log_warn(got.error_code == 409 ? "telegram-conflict" : "telegram-poll-failed", got.summary());
      if (!wait(stop, backoff)) return;
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
      std::optional<InboundMessage> msg = read_update(u.as_object());
      bool from_bot = false;
      if (msg)
        if (const auto* m = object_at(u.as_object(), "message"))
          if (const auto* from = object_at(*m, "from"))
            if (const auto* b = from->if_contains("is_bot"); b != nullptr && b->is_bool())
              from_bot = b->as_bool();
      const Verdict verdict = msg ? admit(*msg, policy, from_bot) : Verdict::NoText;
      if (!on_update_(id, msg, verdict)) {
        // Not recorded: not confirmed either; Telegram sends it again with the next poll.
        if (!wait(stop, backoff)) return;
        grow();
        break;
      }
      offset = id + 1;
    }
  }
}

}  // namespace sigil::channels::telegram
