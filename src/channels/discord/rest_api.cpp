#include "sigil/channels/discord/rest_api.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <thread>
#include <utility>
#include <variant>

#include "channels/send_pace.h"
#include "sigil/net/multipart.h"
#include "sigil/net/url.h"
#include "sigil/text/ascii.h"

namespace sigil::channels::discord {
namespace {

constexpr std::size_t kMaxAnswer = 4u << 20;

RestOutcome from_answer(const net::HttpResult& r) {
  RestOutcome o;
  o.status = r.head.status;
  boost::system::error_code ec;
  boost::json::value v = r.body.empty() ? boost::json::value() : boost::json::parse(r.body, ec);
  if (ec) v = nullptr;
  if (r.head.status >= 200 && r.head.status < 300) {
    o.kind = RestOutcome::Kind::Ok;
    o.body = std::move(v);
    return o;
  }
  if (v.is_object()) {
    const auto& obj = v.as_object();
    if (const auto* c = obj.if_contains("code"); c != nullptr && c->is_int64())
      o.code = static_cast<int>(c->as_int64());
    if (const auto* m = obj.if_contains("message"); m != nullptr && m->is_string())
      o.message = std::string(m->as_string());
  }
  if (o.message.empty()) o.message = "HTTP " + std::to_string(r.head.status) + " without Discord's answer";
  // A 5xx says nothing about whether the request took effect (a proxy's 502 may come after Discord did it).
  o.kind = r.head.status >= 500 ? RestOutcome::Kind::Unknown : RestOutcome::Kind::Refused;
  o.body = std::move(v);
  return o;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

std::string RestOutcome::summary() const {
  if (kind == Kind::Refused)
    return call_summary(kind, std::to_string(status) +
                                  (code != 0 ? " " + std::to_string(code) : std::string()) + " " + message);
  if (kind == Kind::Unknown && status != 0) return call_summary(kind, std::to_string(status) + " " + message);
  return call_summary(kind, message);
}

std::string bot_id_from_token(std::string_view token) {
  const std::string_view first = token.substr(0, token.find('.'));
  std::string out;
  unsigned bits = 0, value = 0;
  for (char c : first) {
    const int v = base64_value(c);
    if (v < 0) break;
    value = (value << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((value >> bits) & 0xFF);
    }
  }
  if (out.empty() || out.size() > 20 || out.find_first_not_of("0123456789") != std::string::npos)
    return "unknown";
  return out;
}

RestApi::RestApi(net::HttpClient& client, std::string api_url, std::string token, RestOptions options)
    : PlatformApi(client, api_url, std::move(token), options.requests_per_second, options.request_burst),
      options_(options) {}

RestOutcome RestApi::once(const RestRequest& request, const std::string& content_type,
                          const std::string& body) {
  net::HttpRequest req;
  req.method = request.method;
  req.url = api_url_ + request.path;
  req.headers.push_back({"Authorization", "Bot " + token_});
  if (!content_type.empty()) req.headers.push_back({"Content-Type", content_type});
  req.body = body;
  const auto timeout =
      options_.request_timeout + std::chrono::minutes(1) * (body.size() / (10u << 20));  // uploads: more time
  req.timeouts.first_byte = timeout;
  req.timeouts.idle = timeout;
  // The net client's own resend would bypass our bookkeeping: only what this class decides is sent again.
  req.resend_on_stale_connection = false;
  const net::HttpResult r = calls_.fetch(client_, std::move(req), kMaxAnswer);
  limits_.observe(route_key(request.method, request.path), r.head.status, r.head.headers, r.body,
                  RateClock::now());
  if (r.error && r.head.status == 0) {
    RestOutcome o;
    o.kind = net::never_sent(r.error->kind) ? RestOutcome::Kind::NotSent : RestOutcome::Kind::Unknown;
    o.message = r.error->message;  // names the host and port, never a header
    return o;
  }
  return from_answer(r);
}

Result<std::string, net::DownloadError> RestApi::download(std::string_view url, std::size_t max_bytes) {
  const auto origin_of = [](std::string_view text) -> std::string {
    auto parsed = net::parse_url(text);
    const auto* u = std::get_if<net::Url>(&parsed);
    return u == nullptr ? std::string() : u->scheme + "://" + text::ascii::to_lower(u->authority());
  };
  const std::string origin = origin_of(url);
  if (origin.empty() || (origin != "https://cdn.discordapp.com" && origin != "https://media.discordapp.net" &&
                         origin != origin_of(api_url_)))
    return Failure{net::DownloadError{false, "not a Discord attachment URL"}};
  net::HttpRequest req;
  req.method = "GET";
  req.url = std::string(url);
  req.timeouts.first_byte = options_.request_timeout;
  req.timeouts.idle = options_.request_timeout;
  return calls_.download(client_, std::move(req), max_bytes);
}

RestOutcome RestApi::call(const RestRequest& request) {
  std::string content_type, body;
  if (!request.files.empty()) {
    std::vector<net::MultipartPart> parts;
    parts.push_back({"payload_json",
                     request.json ? boost::json::serialize(*request.json) : std::string("{}"),
                     {},
                     "application/json"});
    for (std::size_t i = 0; i < request.files.size(); ++i) {
      const RestFile& f = request.files[i];
      parts.push_back({"files[" + std::to_string(i) + "]", f.data, f.filename.empty() ? "file" : f.filename,
                       f.content_type});
    }
    net::MultipartBody m = net::encode_multipart(parts);
    content_type = std::move(m.content_type);
    body = std::move(m.body);
  } else if (request.json) {
    content_type = "application/json";
    body = boost::json::serialize(*request.json);
  }
  const std::string route = route_key(request.method, request.path);
  int retries = 0;
  for (int attempt = 1;; ++attempt) {
    RestOutcome o;
    bool gave_up = true;  // not made: stopped, or a rate-limit wait longer than max_wait
    const auto wait = limits_.wait_before(route, RateClock::now());
    if (wait > options_.max_wait) {
      o.message = "rate limited for " + std::to_string(wait.count() / 1000) + " s";
    } else if ((wait.count() > 0 && !calls_.pause(wait)) || calls_.stopped() ||
               !pace_->take([this](std::chrono::milliseconds d) { return calls_.pause(d); })) {
      o.message = "stopped";
    } else {
      o = once(request, content_type, body);
      gave_up = false;
    }
    o.retries = retries;
    const bool limited = o.kind == RestOutcome::Kind::Refused && o.status == 429;
    const bool again = !gave_up && attempt < options_.max_attempts &&
                       (limited || o.kind == RestOutcome::Kind::NotSent ||
                        (request.repeatable && o.kind == RestOutcome::Kind::Unknown));
    count_attempt(route, o, again, "discord-retry", "route");
    if (!again) return o;
    ++retries;
    // A 429 is waited out by the rate-limit bookkeeping at the top of the loop; other failures pause.
    if (!limited && !calls_.pause(options_.retry_pause * attempt)) {
      o.message = "stopped";
      return o;
    }
  }
}

}  // namespace sigil::channels::discord
