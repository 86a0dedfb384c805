#include "sigil/channels/whatsapp/graph_api.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <utility>
#include <variant>

#include "sigil/channels/json_fields.h"
#include "sigil/log/log.h"
#include "sigil/net/multipart.h"
#include "sigil/net/url.h"
#include "sigil/text/ascii.h"

namespace sigil::channels::whatsapp {
namespace {

constexpr std::size_t kMaxAnswer = 4u << 20;

// A 429's Retry-After in seconds; 0 when it is missing or unreadable (the caller's own pause then).
std::chrono::seconds retry_after(const net::HttpResponseHead& head) {
  const std::string* h = head.find("Retry-After");
  long seconds = 0;
  if (h != nullptr) std::from_chars(h->data(), h->data() + h->size(), seconds);
  return std::chrono::seconds(seconds > 0 ? seconds : 0);
}

// An answer with a status: Ok for 2xx, else the Graph error it carries (Refused for 4xx; a 5xx says nothing
// about whether the call took effect: Unknown).
GraphOutcome from_answer(const net::HttpResult& r) {
  GraphOutcome o;
  o.status = r.head.status;
  boost::system::error_code ec;
  boost::json::value v = r.body.empty() ? boost::json::value() : boost::json::parse(r.body, ec);
  if (r.head.status >= 200 && r.head.status < 300) {
    o.kind = GraphOutcome::Kind::Ok;
    if (!ec && v.is_object()) o.body = std::move(v.as_object());
    return o;
  }
  o.kind = r.head.status >= 500 ? GraphOutcome::Kind::Unknown : GraphOutcome::Kind::Refused;
  const boost::json::object* error = nullptr;
  if (!ec && v.is_object()) error = object_at(v.as_object(), "error");
  if (error == nullptr) {
    o.error = "without a Graph error";
    return o;
  }
  o.code = int_at(*error, "code");
  o.subcode = int_at(*error, "error_subcode");
  o.error = string_at(*error, "message");
  if (const auto* data = object_at(*error, "error_data")) {
    const std::string details = string_at(*data, "details");
    if (!details.empty()) o.error += (o.error.empty() ? "" : ": ") + details;
  }
  if (o.error.empty()) o.error = "a Graph error without a message";
  return o;
}

std::string origin_of(std::string_view text) {
  auto parsed = net::parse_url(text);
  const auto* u = std::get_if<net::Url>(&parsed);
  return u == nullptr ? std::string() : u->scheme + "://" + text::ascii::to_lower(u->authority());
}

std::string trimmed_url(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

bool is_throttling(std::int64_t code) {
  return code == 4 || code == 80007 || code == 130429 || code == 131056;
}

std::string GraphOutcome::summary() const {
  if (kind == Kind::Refused) {
    std::string s = error;
    if (code != 0) s += " [code " + std::to_string(code) + "]";
    if (status != 400 && status != 0) s = "HTTP " + std::to_string(status) + " " + s;
    return call_summary(kind, s);
  }
  if (kind == Kind::Unknown && status != 0)
    return call_summary(kind, "HTTP " + std::to_string(status) + " " + error);
  return call_summary(kind, error);
}

GraphApi::GraphApi(net::HttpClient& client, std::string api_url, std::string access_token,
                   std::string phone_number_id, GraphOptions options)
    : PlatformApi(client, trimmed_url(std::move(api_url)), std::move(access_token), 0, 1),
      options_(options),
      phone_number_id_(std::move(phone_number_id)) {}

GraphApi::~GraphApi() = default;

GraphStats GraphApi::stats() const { return paced_stats(); }

GraphOutcome GraphApi::once(const std::string& method, const std::string& url,
                            const std::string& content_type, const std::string& body) {
  net::HttpRequest req;
  req.method = method;
  req.url = url;
  req.headers.push_back({"Authorization", "Bearer " + token_});
  if (!content_type.empty()) req.headers.push_back({"Content-Type", content_type});
  req.body = body;
  const auto timeout = options_.request_timeout + std::chrono::minutes(1) * (body.size() / (10u << 20));
  req.timeouts.first_byte = timeout;
  req.timeouts.idle = timeout;
  // The net client's own resend would bypass our bookkeeping: only what this class decides is sent again.
  req.resend_on_stale_connection = false;
  const net::HttpResult r = calls_.fetch(client_, std::move(req), kMaxAnswer);
  if (r.error && r.head.status == 0) {
    GraphOutcome o;
    o.kind = net::never_sent(r.error->kind) ? GraphOutcome::Kind::NotSent : GraphOutcome::Kind::Unknown;
    o.error = r.error->message;  // names the host and port, never a header
    return o;
  }
  GraphOutcome o = from_answer(r);
  if (r.head.status == 429) {
    o.kind = GraphOutcome::Kind::Refused;
    if (o.code == 0) o.code = 4;
    o.body["retry_after"] = retry_after(r.head).count();
  }
  return o;
}

GraphOutcome GraphApi::call(const std::string& method, const std::string& path,
                            const std::string& content_type, const std::string& body, bool repeatable,
                            std::string_view what) {
  const std::string url = api_url_ + "/" + path;
  int retries = 0;
  std::chrono::milliseconds wait{0};
  for (int attempt = 1;; ++attempt) {
    GraphOutcome o;
    bool gave_up = true;  // not made: stopped, or a rate-limit wait longer than max_wait
    if (wait > options_.max_wait) {
      o.error = "rate limited for " + std::to_string(wait.count() / 1000) + " s";
    } else if ((wait.count() > 0 && !calls_.pause(wait)) || calls_.stopped()) {
      o.error = "stopped";
    } else {
      o = once(method, url, content_type, body);
      gave_up = false;
    }
    o.retries = retries;
    const bool limited = o.kind == GraphOutcome::Kind::Refused && (o.status == 429 || is_throttling(o.code));
    const bool again = !gave_up && attempt < options_.max_attempts &&
                       (limited || o.kind == GraphOutcome::Kind::NotSent ||
                        (repeatable && o.kind == GraphOutcome::Kind::Unknown));
    calls_.count([&](net::CallStats& stats) {
      if (o.status != 0 || o.kind != GraphOutcome::Kind::NotSent) ++stats.calls;
      if (!o.ok() && !again) {
        ++stats.failures;
        stats.last_error = std::string(what) + ": " + o.summary();
      }
      if (again) ++stats.retries;
    });
    if (!again) return o;
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "whatsapp-retry", {}}
                     .with("call", std::string(what))
                     .with("error", o.summary()));
    ++retries;
    wait = std::chrono::milliseconds(0);
    if (limited) {
      // Meta did nothing: wait what it asked (a 429's Retry-After), else a growing pause.
      const auto* asked = o.body.if_contains("retry_after");
      const std::int64_t seconds = asked != nullptr && asked->is_int64() ? asked->as_int64() : 0;
      wait = seconds > 0 ? std::chrono::milliseconds(seconds * 1000) : options_.retry_pause * (2 * attempt);
    } else if (!calls_.pause(options_.retry_pause * attempt)) {
      o.error = "stopped";
      return o;
    }
  }
}

GraphOutcome GraphApi::send(boost::json::object message) {
  message["messaging_product"] = "whatsapp";
  message["recipient_type"] = "individual";
  const std::string type = string_at(message, "type");
  return call("POST", phone_number_id_ + "/messages", "application/json", boost::json::serialize(message),
              false, "send " + (type.empty() ? std::string("text") : type));
}

GraphOutcome GraphApi::mark_read(const std::string& message_id, bool typing) {
  boost::json::object o{{"messaging_product", "whatsapp"}, {"status", "read"}, {"message_id", message_id}};
  if (typing) o["typing_indicator"] = boost::json::object{{"type", "text"}};
  return call("POST", phone_number_id_ + "/messages", "application/json", boost::json::serialize(o), true,
              "read");
}

GraphOutcome GraphApi::upload(const std::string& mime_type, const std::string& filename,
                              const std::string& data) {
  // A new media id each time and nothing shown: made again after an unknown outcome, the first copy is an
  // unused media object Meta deletes after 30 days.
  const net::MultipartBody mp =
      net::encode_multipart({{"messaging_product", "whatsapp", {}, {}},
                             {"type", mime_type, {}, {}},
                             {"file", data, filename.empty() ? "file" : filename, mime_type}});
  return call("POST", phone_number_id_ + "/media", mp.content_type, mp.body, true, "upload");
}

Result<std::string, net::DownloadError> GraphApi::download(const std::string& media_id,
                                                           std::size_t max_bytes) {
  if (media_id.empty() || media_id.find_first_not_of("0123456789") != std::string::npos)
    return Failure{net::DownloadError{false, "not a WhatsApp media id"}};
  const GraphOutcome info =
      call("GET", media_id + "?phone_number_id=" + phone_number_id_, "", "", true, "media");
  if (!info.ok()) return Failure{net::DownloadError{false, "media " + media_id + ": " + info.summary()}};
  const std::string url = string_at(info.body, "url");
  const std::string origin = origin_of(url);
  if (origin.empty() || (origin != "https://lookaside.fbsbx.com" && origin != origin_of(api_url_)))
    return Failure{net::DownloadError{false, "the media URL is not on Meta's media host"}};
  net::HttpRequest req;
  req.method = "GET";
  req.url = url;
  req.headers.push_back({"Authorization", "Bearer " + token_});
  req.timeouts.first_byte = options_.request_timeout;
  req.timeouts.idle = options_.request_timeout;
  const net::HttpResult r = calls_.fetch(client_, std::move(req), max_bytes);
  const std::string why = r.download_failure(max_bytes);
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

}  // namespace sigil::channels::whatsapp
