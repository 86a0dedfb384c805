#include "sigil/channels/matrix/client_api.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <utility>

#include "sigil/channels/json_fields.h"
#include "sigil/net/url.h"

namespace sigil::channels::matrix {
namespace {

constexpr std::size_t kMaxAnswer = 16u << 20;

// How long a 429 asks to wait: `retry_after_ms` in Matrix's error, else the Retry-After header (seconds);
// 1 s when neither is readable.
std::chrono::milliseconds retry_after(const net::HttpResponseHead& head, const boost::json::object& body) {
  const std::int64_t ms = int_at(body, "retry_after_ms");
  if (ms > 0) return std::chrono::milliseconds(ms);
  const std::string* h = head.find("Retry-After");
  long seconds = 0;
  if (h != nullptr) std::from_chars(h->data(), h->data() + h->size(), seconds);
  return std::chrono::milliseconds(seconds > 0 ? seconds * 1000 : 1000);
}

}  // namespace

std::string ApiOutcome::summary() const {
  if (kind == Kind::Refused) {
    std::string what = errcode.empty() ? error : errcode + ": " + error;
    return call_summary(kind, what + " (HTTP " + std::to_string(status) + ")");
  }
  if (kind == Kind::Unknown && status != 0)
    return call_summary(kind, "HTTP " + std::to_string(status) + " " + error);
  return call_summary(kind, error);
}

std::string path_segment(std::string_view s) { return net::percent_encode(s); }

ClientApi::ClientApi(net::HttpClient& client, std::string homeserver_url, std::string access_token,
                     ApiOptions options)
    : PlatformApi(client, homeserver_url, std::move(access_token), 0, 1), options_(options) {}

ClientApi::~ClientApi() = default;

ApiStats ClientApi::stats() const { return paced_stats(); }

ApiOutcome ClientApi::once(std::string_view method, const std::string& path, const std::string& content_type,
                           const std::string& body, std::chrono::milliseconds timeout,
                           std::chrono::milliseconds& wait) {
  net::HttpRequest req;
  req.method = std::string(method);
  req.url = api_url_ + path;
  req.headers.push_back({"Authorization", "Bearer " + token_});
  if (!content_type.empty()) req.headers.push_back({"Content-Type", content_type});
  req.body = body;
  if (timeout.count() == 0)
    timeout = options_.request_timeout + std::chrono::minutes(1) * (body.size() / (10u << 20));
  req.timeouts.first_byte = timeout;
  req.timeouts.idle = timeout;
  // The net client's own resend would bypass our bookkeeping: only what this class decides is sent again.
  req.resend_on_stale_connection = false;
  const net::HttpResult r = calls_.fetch(client_, std::move(req), kMaxAnswer);
  ApiOutcome o;
  if (r.error && r.head.status == 0) {
    o.kind = net::never_sent(r.error->kind) ? ApiOutcome::Kind::NotSent : ApiOutcome::Kind::Unknown;
    o.error = r.error->message;  // names the host and port, never a header
    return o;
  }
  o.status = r.head.status;
  boost::system::error_code ec;
  boost::json::value v = r.body.empty() ? boost::json::value() : boost::json::parse(r.body, ec);
  if (!ec && v.is_object()) o.body = std::move(v.as_object());
  if (o.status >= 200 && o.status < 300) {
    o.kind = ApiOutcome::Kind::Ok;
    return o;
  }
  o.errcode = string_at(o.body, "errcode");
  o.error = string_at(o.body, "error");
  if (o.status == 429) {
    o.kind = ApiOutcome::Kind::Refused;
    if (o.errcode.empty()) o.errcode = "M_LIMIT_EXCEEDED";
    wait = retry_after(r.head, o.body);
    return o;
  }
  // A 5xx (or an answer that is not Matrix's) says nothing about whether the call took effect.
  if (o.status >= 400 && o.status < 500) {
    o.kind = ApiOutcome::Kind::Refused;
    if (o.error.empty()) o.error = "without a Matrix error";
  } else {
    o.kind = ApiOutcome::Kind::Unknown;
    if (o.error.empty()) o.error = "without a Matrix error";
  }
  return o;
}

ApiOutcome ClientApi::call(std::string_view method, const std::string& path, const std::string& json,
                           bool repeatable, std::chrono::milliseconds timeout) {
  return request(method, path, json.empty() ? std::string() : "application/json", json, repeatable, timeout);
}

ApiOutcome ClientApi::request(std::string_view method, const std::string& path,
                              const std::string& content_type, const std::string& body, bool repeatable,
                              std::chrono::milliseconds timeout) {
  ApiOutcome o;
  for (int attempt = 1;; ++attempt) {
    if (calls_.stopped()) {
      o = ApiOutcome{};
      o.error = "stopped";
      break;
    }
    std::chrono::milliseconds wait{0};
    const int retries = o.retries;
    o = once(method, path, content_type, body, timeout, wait);
    o.retries = retries;
    bool again = false;
    if (o.status == 429) {
      if (wait > options_.max_wait) {
        o.kind = ApiOutcome::Kind::NotSent;
        o.error = "rate limited for " + std::to_string(wait.count()) + " ms";
        break;
      }
      again = true;  // a 429 does not count against max_attempts' repeats of failures
      --attempt;
    } else if (o.kind == ApiOutcome::Kind::NotSent || (o.kind == ApiOutcome::Kind::Unknown && repeatable)) {
      again = attempt < options_.max_attempts;
      wait = options_.retry_pause * attempt;
    }
    if (!again) break;
    ++o.retries;
    if (o.retries > 100 || !calls_.pause(wait)) break;
  }
  calls_.count([&](net::CallStats& stats) {
    ++stats.calls;
    stats.retries += static_cast<std::uint64_t>(o.retries);
    if (!o.ok()) {
      ++stats.failures;
      stats.last_error = std::string(method) + " " + path.substr(0, path.find('?')) + ": " + o.summary();
    }
  });
  return o;
}

ApiOutcome ClientApi::send_event(const std::string& room, const std::string& type,
                                 const boost::json::object& content, const std::string& txn_id) {
  return call("PUT",
              "/_matrix/client/v3/rooms/" + path_segment(room) + "/send/" + path_segment(type) + "/" +
                  path_segment(txn_id),
              boost::json::serialize(content), true);
}

ApiOutcome ClientApi::redact(const std::string& room, const std::string& event_id,
                             const std::string& txn_id) {
  return call("PUT",
              "/_matrix/client/v3/rooms/" + path_segment(room) + "/redact/" + path_segment(event_id) + "/" +
                  path_segment(txn_id),
              "{}", true);
}

ApiOutcome ClientApi::upload(const std::string& data, const std::string& content_type,
                             const std::string& filename) {
  return request("POST", "/_matrix/media/v3/upload?filename=" + net::percent_encode(filename),
                 content_type.empty() ? "application/octet-stream" : content_type, data, true, {});
}

Result<std::string, net::DownloadError> ClientApi::download(std::string_view mxc_uri, std::size_t max_bytes) {
  // mxc://<server name>/<media id>: both parts plain, so nothing else can be aimed at.
  constexpr std::string_view kScheme = "mxc://";
  std::string_view rest = mxc_uri.starts_with(kScheme) ? mxc_uri.substr(kScheme.size()) : std::string_view();
  const std::size_t slash = rest.find('/');
  const std::string_view server =
      slash == std::string_view::npos ? std::string_view() : rest.substr(0, slash);
  const std::string_view media =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  const auto plain = [](std::string_view s) {
    return !s.empty() && s.find_first_of("/?#@\\ ") == std::string_view::npos;
  };
  if (!plain(server) || !plain(media)) return Failure{net::DownloadError{false, "not an mxc:// URI"}};
  net::HttpRequest req;
  req.method = "GET";
  req.url =
      api_url_ + "/_matrix/client/v1/media/download/" + path_segment(server) + "/" + path_segment(media);
  req.headers.push_back({"Authorization", "Bearer " + token_});
  req.timeouts.first_byte = options_.request_timeout;
  req.timeouts.idle = options_.request_timeout;
  return calls_.download(client_, std::move(req), max_bytes);
}

}  // namespace sigil::channels::matrix
