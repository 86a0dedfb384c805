#include "sigil/channels/slack/web_api.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <functional>
#include <utility>
#include <variant>

#include "channels/send_pace.h"
#include "sigil/net/url.h"
#include "sigil/text/ascii.h"

namespace sigil::channels::slack {
namespace {

constexpr std::size_t kMaxAnswer = 4u << 20;

std::string string_field(const boost::json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// A 429's Retry-After in seconds (Slack sends whole seconds); 1 when it is missing or unreadable.
std::chrono::seconds retry_after(const net::HttpResponseHead& head) {
  const std::string* h = head.find("Retry-After");
  long seconds = 0;
  if (h != nullptr) std::from_chars(h->data(), h->data() + h->size(), seconds);
  return std::chrono::seconds(seconds > 0 ? seconds : 1);
}

ApiOutcome from_answer(const net::HttpResult& r) {
  ApiOutcome o;
  o.status = r.head.status;
  boost::system::error_code ec;
  boost::json::value v = r.body.empty() ? boost::json::value() : boost::json::parse(r.body, ec);
  if (!ec && v.is_object()) o.body = v.as_object();
  if (r.head.status == 200 && !ec && v.is_object()) {
    const auto* ok = o.body.if_contains("ok");
    if (ok != nullptr && ok->is_bool() && ok->as_bool()) {
      o.kind = ApiOutcome::Kind::Ok;
      return o;
    }
    o.kind = ApiOutcome::Kind::Refused;
    o.error = string_field(o.body, "error");
    if (o.error.empty()) o.error = "ok:false without an error";
    return o;
  }
  o.error = string_field(o.body, "error");
  if (o.error.empty()) o.error = "without Slack's answer";
  // A 5xx (or a 200 that is not Slack's JSON) says nothing about whether the call took effect.
  o.kind =
      r.head.status >= 400 && r.head.status < 500 ? ApiOutcome::Kind::Refused : ApiOutcome::Kind::Unknown;
  return o;
}

std::string origin_of(std::string_view text) {
  auto parsed = net::parse_url(text);
  const auto* u = std::get_if<net::Url>(&parsed);
  return u == nullptr ? std::string() : u->scheme + "://" + text::ascii::to_lower(u->authority());
}

std::int64_t channel_key(const std::string& channel) {
  return static_cast<std::int64_t>(std::hash<std::string>{}(channel));
}

}  // namespace

std::string ApiOutcome::summary() const {
  if (kind == Kind::Refused)
    return call_summary(kind, status == 200 ? error : "HTTP " + std::to_string(status) + " " + error);
  if (kind == Kind::Unknown && status != 0)
    return call_summary(kind, "HTTP " + std::to_string(status) + " " + error);
  return call_summary(kind, error);
}

std::string bot_account(std::string_view token) {
  if (!token.starts_with("xoxb-")) return "unknown";
  token.remove_prefix(5);
  const auto first = token.find('-');
  if (first == std::string_view::npos) return "unknown";
  const auto second = token.find('-', first + 1);
  if (second == std::string_view::npos) return "unknown";
  const std::string_view a = token.substr(0, first), b = token.substr(first + 1, second - first - 1);
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(a) || !digits(b)) return "unknown";
  return std::string(a) + "-" + std::string(b);
}

std::string form_body(const ApiArgs& args) {
  std::string out;
  for (const auto& [name, value] : args) {
    if (!out.empty()) out += '&';
    out += net::percent_encode(name) + "=" + net::percent_encode(value);
  }
  return out;
}

WebApi::WebApi(net::HttpClient& client, std::string api_url, std::string token, ApiOptions options)
    : PlatformApi(client, api_url, std::move(token), 0, 1),
      options_(options),
      posts_(std::make_unique<SendPace>(options.posts_per_second, options.post_burst)) {}

WebApi::~WebApi() = default;

ApiStats WebApi::stats() const { return paced_stats(posts_->waits()); }

ApiOutcome WebApi::once(const std::string& url, const std::string& content_type, const std::string& body,
                        bool with_token) {
  net::HttpRequest req;
  req.method = "POST";
  req.url = url;
  if (with_token) req.headers.push_back({"Authorization", "Bearer " + token_});
  if (!content_type.empty()) req.headers.push_back({"Content-Type", content_type});
  req.body = body;
  const auto timeout = options_.request_timeout + std::chrono::minutes(1) * (body.size() / (10u << 20));
  req.timeouts.first_byte = timeout;
  req.timeouts.idle = timeout;
  // The net client's own resend would bypass our bookkeeping: only what this class decides is sent again.
  req.resend_on_stale_connection = false;
  const net::HttpResult r = calls_.fetch(client_, std::move(req), kMaxAnswer);
  if (r.error && r.head.status == 0) {
    ApiOutcome o;
    o.kind = net::never_sent(r.error->kind) ? ApiOutcome::Kind::NotSent : ApiOutcome::Kind::Unknown;
    o.error = r.error->message;  // names the host and port, never a header
    return o;
  }
  if (r.head.status == 429) {
    ApiOutcome o;
    o.kind = ApiOutcome::Kind::Refused;
    o.status = 429;
    o.error = "ratelimited";
    o.body["retry_after"] = retry_after(r.head).count();
    return o;
  }
  return from_answer(r);
}

ApiOutcome WebApi::send(std::string_view method, const ApiArgs& args, bool repeatable,
                        const std::string& pace_key) {
  const std::string url = api_url_ + "/" + std::string(method);
  const std::string body = form_body(args);
  int retries = 0;
  std::chrono::seconds wait{0};
  for (int attempt = 1;; ++attempt) {
    ApiOutcome o;
    bool gave_up = true;  // not made: stopped, or a rate-limit wait longer than max_wait
    const auto pause = [this](std::chrono::milliseconds d) { return calls_.pause(d); };
    if (wait > options_.max_wait) {
      o.error = "rate limited for " + std::to_string(wait.count()) + " s";
    } else if ((wait.count() > 0 && !calls_.pause(wait)) || calls_.stopped() ||
               (!pace_key.empty() && !posts_->take(pause, channel_key(pace_key)))) {
      o.error = "stopped";
    } else {
      o = once(url, "application/x-www-form-urlencoded", body, true);
      gave_up = false;
    }
    o.retries = retries;
    const bool limited = o.kind == ApiOutcome::Kind::Refused && o.status == 429;
    const bool again = !gave_up && attempt < options_.max_attempts &&
                       (limited || o.kind == ApiOutcome::Kind::NotSent ||
                        (repeatable && o.kind == ApiOutcome::Kind::Unknown));
    count_attempt(method, o, again, "slack-retry", "method");
    if (!again) return o;
    ++retries;
    wait = std::chrono::seconds(0);
    if (limited) {
      // Slack did nothing: wait what it asked, then make the call again.
      wait = std::chrono::seconds(o.body.at("retry_after").as_int64());
    } else if (!calls_.pause(options_.retry_pause * attempt)) {
      o.error = "stopped";
      return o;
    }
  }
}

ApiOutcome WebApi::call(std::string_view method, const ApiArgs& args, bool repeatable) {
  return send(method, args, repeatable, {});
}

ApiOutcome WebApi::post_message(const std::string& channel, const std::string& text,
                                const std::string& thread_ts) {
  ApiArgs args{{"channel", channel}, {"text", text}, {"mrkdwn", "true"}, {"unfurl_links", "false"}};
  if (!thread_ts.empty()) args.emplace_back("thread_ts", thread_ts);
  return send("chat.postMessage", args, false, channel);
}

ApiOutcome WebApi::add_reaction(const std::string& channel, const std::string& ts, const std::string& name) {
  ApiOutcome o = send("reactions.add", {{"channel", channel}, {"timestamp", ts}, {"name", name}}, true, {});
  // Made again after an Unknown outcome, the first call may have added it: the reaction is there.
  if (o.kind == ApiOutcome::Kind::Refused && o.error == "already_reacted") o.kind = ApiOutcome::Kind::Ok;
  return o;
}

ApiOutcome WebApi::upload_file(const std::string& channel, const std::string& thread_ts,
                               const UploadFile& file, const std::string& comment) {
  ApiOutcome o;
  std::string file_id;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    o = send("files.getUploadURLExternal",
             {{"filename", file.filename.empty() ? "file" : file.filename},
              {"length", std::to_string(file.data.size())}},
             true, {});
    if (!o.ok()) return o;
    const std::string upload_url = string_field(o.body, "upload_url");
    file_id = string_field(o.body, "file_id");
    if (upload_url.empty() || file_id.empty()) {
      o.kind = ApiOutcome::Kind::Refused;
      o.error = "files.getUploadURLExternal without upload_url or file_id";
      return o;
    }
    // Slack's upload host takes the bytes raw; the answer is "OK - <length>" as text.
    const ApiOutcome up = once(upload_url, "application/octet-stream", file.data, false);
    if (up.status == 200) break;
    // Nothing is shown before the completion: a failed upload starts again with a new upload URL.
    o = up;
    o.error = "upload: " + up.summary();
    file_id.clear();
    if (calls_.stopped() || !calls_.pause(options_.retry_pause * attempt)) return o;
  }
  if (file_id.empty()) {
    // The bytes never reached Slack whole and nothing was shown: safe to send again later.
    if (o.kind == ApiOutcome::Kind::Unknown) o.kind = ApiOutcome::Kind::NotSent;
    return o;
  }
  boost::json::array files{
      boost::json::object{{"id", file_id}, {"title", file.title.empty() ? file.filename : file.title}}};
  ApiArgs args{{"files", boost::json::serialize(files)}, {"channel_id", channel}};
  if (!thread_ts.empty()) args.emplace_back("thread_ts", thread_ts);
  if (!comment.empty()) args.emplace_back("initial_comment", comment);
  return send("files.completeUploadExternal", args, false, channel);
}

Result<std::string, net::DownloadError> WebApi::download(std::string_view url, std::size_t max_bytes) {
  const std::string origin = origin_of(url);
  if (origin.empty() || (origin != "https://files.slack.com" && origin != origin_of(api_url_)))
    return Failure{net::DownloadError{false, "not a Slack file URL"}};
  net::HttpRequest req;
  req.method = "GET";
  req.url = std::string(url);
  req.headers.push_back({"Authorization", "Bearer " + token_});
  req.timeouts.first_byte = options_.request_timeout;
  req.timeouts.idle = options_.request_timeout;
  const net::HttpResult r = calls_.fetch(client_, std::move(req), max_bytes);
  std::string why = r.download_failure(max_bytes);
  const std::string* type = r.head.find("Content-Type");
  if (why.empty() && type != nullptr && text::ascii::to_lower(*type).starts_with("text/html"))
    why = "Slack answered with a web page, not the file (the token may lack files:read)";
  calls_.count([&](net::CallStats& stats) {
    ++stats.calls;
    if (!why.empty()) {
      ++stats.failures;
      stats.last_error = "download: " + why;
    }
  });
  if (!why.empty()) return Failure{net::DownloadError{r.truncated, why}};
  return r.body;
}

}  // namespace sigil::channels::slack
