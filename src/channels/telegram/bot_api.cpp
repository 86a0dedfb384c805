#include "sigil/channels/telegram/bot_api.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <memory>
#include <utility>

#include "channels/send_pace.h"
#include "sigil/log/log.h"
#include "sigil/net/multipart.h"
#include "sigil/net/url.h"

namespace sigil::channels::telegram {
namespace {

constexpr std::size_t kMaxAnswer = 8u << 20;  // getUpdates answers with up to 100 updates

// The methods that make a new message: repeating one shows it twice (Telegram has no idempotency key).
// Setting a reaction or a chat action again changes nothing.
bool creates_message(std::string_view method) {
  return method.substr(0, 4) == "send" && method != "sendChatAction";
}

ApiOutcome from_answer(const net::HttpResult& r) {
  ApiOutcome o;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(r.body, ec);
  const boost::json::object* obj = !ec && v.is_object() ? &v.as_object() : nullptr;
  if (obj != nullptr && obj->contains("ok") && (*obj).at("ok").is_bool()) {
    if (obj->at("ok").as_bool()) {
      o.kind = ApiOutcome::Kind::Ok;
      if (const auto* res = obj->if_contains("result")) o.result = *res;
      return o;
    }
    o.kind = ApiOutcome::Kind::Refused;
    o.error_code = r.head.status;
    if (const auto* c = obj->if_contains("error_code"); c != nullptr && c->is_int64())
      o.error_code = static_cast<int>(c->as_int64());
    if (const auto* d = obj->if_contains("description"); d != nullptr && d->is_string())
      o.description = std::string(d->as_string());
    if (const auto* p = obj->if_contains("parameters"); p != nullptr && p->is_object())
      if (const auto* ra = p->as_object().if_contains("retry_after"); ra != nullptr && ra->is_int64())
        o.result = boost::json::object{{"retry_after", ra->as_int64()}};
    return o;
  }
  // Not the Bot API's JSON (a proxy's error page): Telegram's answer, if any, is lost with it.
  o.kind = r.head.status >= 500 || r.head.status == 0 ? ApiOutcome::Kind::Unknown : ApiOutcome::Kind::Refused;
  o.error_code = r.head.status;
  o.description = "HTTP " + std::to_string(r.head.status) + " without a Bot API answer";
  return o;
}

int retry_after_of(const ApiOutcome& o) {
  if (o.kind != ApiOutcome::Kind::Refused || o.error_code != 429 || !o.result.is_object()) return -1;
  const auto* ra = o.result.as_object().if_contains("retry_after");
  return ra != nullptr && ra->is_int64() ? static_cast<int>(ra->as_int64()) : -1;
}

std::string field_value(const boost::json::value& v) {
  return v.is_string() ? std::string(v.as_string()) : boost::json::serialize(v);
}

// The calls Telegram's bot-wide message limit counts: those that make or change a message. Typing
// indicators, reactions, reads and deletes are left unpaced.
bool makes_message(std::string_view method) {
  if (method == "sendChatAction") return false;
  return method.starts_with("send") || method.starts_with("edit") || method == "copyMessage" ||
         method == "forwardMessage";
}

ApiOutcome stopped_outcome() {
  ApiOutcome o;
  o.description = "stopped";
  return o;
}

}  // namespace

std::string ApiOutcome::summary() const {
  return call_summary(kind,
                      kind == Kind::Refused ? std::to_string(error_code) + " " + description : description);
}

BotApi::BotApi(net::HttpClient& client, std::string api_url, std::string token, BotApiOptions options)
    : PlatformApi(client, api_url, std::move(token), options.messages_per_second, options.message_burst),
      options_(options),
      // Half the minute's messages at once and the other half spread over it: never more than the
      // limit in any minute, and a reply of a few messages still goes at once.
      group_pace_(std::make_unique<SendPace>(options.group_messages_per_minute / 120.0,
                                             std::max(1u, options.group_messages_per_minute / 2))) {
  bot_id_ = token_.substr(0, token_.find(':'));
}

BotApi::~BotApi() = default;

BotApiStats BotApi::stats() const { return paced_stats(group_pace_->waits()); }

std::optional<std::vector<std::string>> BotApi::chat_reactions(std::int64_t chat_id) {
  if (chat_id >= 0) return std::nullopt;  // a private chat (0: none)
  constexpr auto kKeep = std::chrono::minutes(10);
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(reactions_mu_);
    if (auto it = reactions_.find(chat_id); it != reactions_.end() && now - it->second.asked < kKeep)
      return it->second.allowed;
  }
  const ApiOutcome o = call("getChat", {{"chat_id", chat_id}});
  if (!o.ok()) return std::nullopt;  // not kept: asked again next time
  std::optional<std::vector<std::string>> allowed;
  if (const auto* info = o.result.if_object(); info != nullptr)
    if (const auto* list = info->if_contains("available_reactions"); list != nullptr && list->is_array()) {
      allowed.emplace();
      for (const auto& r : list->as_array()) {
        const auto* type = r.is_object() ? r.as_object().if_contains("type") : nullptr;
        const auto* emoji = r.is_object() ? r.as_object().if_contains("emoji") : nullptr;
        // Custom emoji and paid reactions are not the bot's to send.
        if (type != nullptr && type->is_string() && type->as_string() == "emoji" && emoji != nullptr &&
            emoji->is_string())
          allowed->emplace_back(emoji->as_string());
      }
    }
  std::lock_guard lock(reactions_mu_);
  if (reactions_.size() >= 4096) reactions_.clear();  // bounded; a forgotten chat is asked again
  reactions_[chat_id] = {now, allowed};
  return allowed;
}

bool BotApi::paced(std::string_view method, const boost::json::object& params) {
  if (!makes_message(method)) return true;
  const auto pause = [this](std::chrono::milliseconds d) { return calls_.pause(d); };
  // Groups, supergroups and channels have negative ids; a private chat's is the user's (positive).
  if (const auto* chat = params.if_contains("chat_id"); chat != nullptr && chat->is_int64() &&
                                                        chat->as_int64() < 0 &&
                                                        !group_pace_->take(pause, chat->as_int64()))
    return false;
  return pace_->take(pause);
}

ApiOutcome BotApi::once(std::string_view method, const std::string& content_type, const std::string& body,
                        std::chrono::milliseconds timeout) {
  net::HttpRequest req;
  req.method = "POST";
  req.url = api_url_ + "/bot" + token_ + "/" + std::string(method);
  req.headers.push_back({"Content-Type", content_type});
  req.body = body;
  req.timeouts.first_byte = timeout;
  req.timeouts.idle = timeout;
  // A message sent twice is a message the user sees twice: a send whose connection drops is in doubt, not
  // resent (the net client would resend it on a reused connection that ends before the answer).
  req.resend_on_stale_connection = !creates_message(method);
  const net::HttpResult r = calls_.fetch(client_, std::move(req), kMaxAnswer);
  if (r.error && r.head.status == 0) {
    ApiOutcome o;
    o.kind = net::never_sent(r.error->kind) ? ApiOutcome::Kind::NotSent : ApiOutcome::Kind::Unknown;
    // NetError::message names the host and port, never the path that holds the token.
    o.description = r.error->message;
    return o;
  }
  return from_answer(r);
}

ApiOutcome BotApi::with_retries(std::string_view method, const std::string& content_type,
                                const std::string& body, std::chrono::milliseconds timeout) {
  int retries = 0;
  for (int attempt = 1;; ++attempt) {
    if (calls_.stopped()) {
      ApiOutcome o = stopped_outcome();
      o.retries = retries;
      return o;
    }
    ApiOutcome o = once(method, content_type, body, timeout);
    o.retries = retries;
    std::chrono::milliseconds wait{-1};
    if (const int ra = retry_after_of(o); ra >= 0 && std::chrono::seconds(ra) <= options_.max_retry_after)
      wait = std::chrono::seconds(ra);
    else if (o.kind == ApiOutcome::Kind::NotSent)
      wait = options_.not_sent_pause;
    calls_.count([&](net::CallStats& stats) {
      ++stats.calls;
      if (!o.ok() && (wait.count() < 0 || attempt >= options_.max_attempts)) {
        ++stats.failures;
        stats.last_error = std::string(method) + ": " + o.summary();
      }
    });
    if (o.ok() || wait.count() < 0 || attempt >= options_.max_attempts) return o;
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "telegram-retry", {}}
                     .with("method", std::string(method))
                     .with("after_ms", static_cast<std::int64_t>(wait.count()))
                     .with("error", o.summary()));
    calls_.count([](net::CallStats& stats) { ++stats.retries; });
    ++retries;
    if (!calls_.pause(wait)) {
      o.retries = retries;
      return o;
    }
  }
}

ApiOutcome BotApi::call(std::string_view method, const boost::json::object& params,
                        std::optional<std::chrono::milliseconds> timeout) {
  if (!paced(method, params)) return stopped_outcome();
  return with_retries(method, "application/json", boost::json::serialize(params),
                      timeout.value_or(options_.request_timeout));
}

ApiOutcome BotApi::upload(std::string_view method, const boost::json::object& params,
                          const UploadFile& file) {
  if (!paced(method, params)) return stopped_outcome();
  std::vector<net::MultipartPart> parts;
  for (const auto& [key, value] : params) parts.push_back({std::string(key), field_value(value), {}, {}});
  parts.push_back({file.field, file.data, file.filename.empty() ? std::string("file") : file.filename,
                   file.content_type});
  net::MultipartBody body = net::encode_multipart(parts);
  // Uploads take longer than JSON calls: a minute more for every 10 MB.
  const auto timeout = options_.request_timeout + std::chrono::minutes(1) * (file.data.size() / (10u << 20));
  return with_retries(method, body.content_type, body.body, timeout);
}

Result<std::string, net::DownloadError> BotApi::download(std::string_view file_path, std::size_t max_bytes) {
  net::HttpRequest req;
  req.method = "GET";
  req.url = api_url_ + "/file/bot" + token_ + "/" + std::string(file_path);
  req.timeouts.first_byte = options_.request_timeout;
  req.timeouts.idle = options_.request_timeout;
  // The error names the host and port, never the path that holds the token.
  return calls_.download(client_, std::move(req), max_bytes);
}

const std::vector<std::string>& telegram_reaction_emoji() {
  static const std::vector<std::string> list = {
      "❤",    "👍",          "👎",    "🔥",    "🥰",        "👏", "😁",    "🤔", "🤯", "😱",
      "🤬", "😢",          "🎉",    "🤩", "🤮",        "💩", "🙏",    "👌",    "🕊", "🤡",
      "🥱", "🥴",       "😍",    "🐳",    "❤‍🔥",  "🌚", "🌭", "💯",    "🤣", "⚡",
      "🍌",    "🏆",          "💔",    "🤨", "😐",           "🍓", "🍾", "💋",    "🖕", "😈",
      "😴",    "😭",          "🤓", "👻",    "👨‍💻", "👀", "🎃",    "🙈",    "😇",    "😨",
      "🤝", "✍",          "🤗", "🫡", "🎅",           "🎄", "☃",    "💅",    "🤪", "🗿",
      "🆒",    "💘",          "🙉",    "🦄", "😘",           "💊", "🙊",    "😎",    "👾",    "🤷‍♂",
      "🤷", "🤷‍♀", "😡",
  };
  return list;
}

}  // namespace sigil::channels::telegram
