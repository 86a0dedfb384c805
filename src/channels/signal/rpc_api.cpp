#include "sigil/channels/signal/rpc_api.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

namespace sigil::channels::signal {
namespace {

constexpr std::size_t kMaxAnswer = 64u << 20;  // getAttachment answers a file in base64
constexpr std::int64_t kRateLimitError = -5;

// The longest retryAfterSeconds among a rate-limit failure's results (1 when none says).
std::chrono::seconds rate_limit_wait(const boost::json::value& data) {
  std::int64_t longest = 1;
  const auto* response = data.is_object() ? data.as_object().if_contains("response") : nullptr;
  const auto* results =
      response != nullptr && response->is_object() ? response->as_object().if_contains("results") : nullptr;
  if (results != nullptr && results->is_array())
    for (const auto& r : results->as_array()) {
      const auto* s = r.is_object() ? r.as_object().if_contains("retryAfterSeconds") : nullptr;
      if (s != nullptr && s->is_int64()) longest = std::max(longest, s->as_int64());
    }
  return std::chrono::seconds(longest);
}

}  // namespace

std::string RpcOutcome::summary() const {
  if (kind == Kind::Refused)
    return call_summary(kind, status == 200 ? std::to_string(code) + " " + error
                                            : "HTTP " + std::to_string(status) + " " + error);
  if (kind == Kind::Unknown && status != 0)
    return call_summary(kind, "HTTP " + std::to_string(status) + " " + error);
  return call_summary(kind, error);
}

std::int64_t RpcOutcome::timestamp() const {
  if (!ok() || !result.is_object()) return 0;
  const auto* t = result.as_object().if_contains("timestamp");
  return t != nullptr && t->is_int64() ? t->as_int64() : 0;
}

RpcApi::RpcApi(net::HttpClient& client, std::string rpc_url, RpcOptions options)
    : PlatformApi(client, rpc_url, {}, 0, 1), options_(options) {}

RpcOutcome RpcApi::once(std::string_view method, const boost::json::object& params) {
  const std::int64_t id = next_id_++;
  boost::json::object request{{"jsonrpc", "2.0"}, {"method", method}, {"id", id}};
  if (!params.empty()) request["params"] = params;
  net::HttpRequest req;
  req.method = "POST";
  req.url = api_url_ + "/api/v1/rpc";
  req.headers.push_back({"Content-Type", "application/json"});
  req.body = boost::json::serialize(request);
  req.timeouts.first_byte = options_.request_timeout;
  req.timeouts.idle = options_.request_timeout;
  // The net client's own resend would bypass our bookkeeping: only what this class decides is sent again.
  req.resend_on_stale_connection = false;
  const net::HttpResult r = calls_.fetch(client_, std::move(req), kMaxAnswer);
  RpcOutcome o;
  o.status = r.head.status;
  if (r.error && r.head.status == 0) {
    o.kind = net::never_sent(r.error->kind) ? RpcOutcome::Kind::NotSent : RpcOutcome::Kind::Unknown;
    o.error = r.error->message;
    return o;
  }
  if (r.head.status >= 400 && r.head.status < 500) {
    o.kind = RpcOutcome::Kind::Refused;
    o.error = "signal-cli refused the request";
    return o;
  }
  if (r.head.status == 201) {  // no answer: only for a request without an id, which this class never sends
    o.kind = RpcOutcome::Kind::Unknown;
    o.error = "no JSON-RPC answer";
    return o;
  }
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(r.body, ec);
  const auto* answer = !ec && v.is_object() ? &v.as_object() : nullptr;
  const auto* answer_id = answer != nullptr ? answer->if_contains("id") : nullptr;
  if (r.head.status != 200 || answer == nullptr || answer_id == nullptr || !answer_id->is_int64() ||
      answer_id->as_int64() != id) {
    // A 5xx or an answer that is not this request's says nothing about whether the call took effect.
    o.kind = RpcOutcome::Kind::Unknown;
    o.error = r.head.status != 200 ? "without signal-cli's answer" : "not a JSON-RPC answer to the request";
    return o;
  }
  if (const auto* e = answer->if_contains("error"); e != nullptr && e->is_object()) {
    o.kind = RpcOutcome::Kind::Refused;
    const auto& err = e->as_object();
    if (const auto* c = err.if_contains("code"); c != nullptr && c->is_int64()) o.code = c->as_int64();
    if (const auto* m = err.if_contains("message"); m != nullptr && m->is_string())
      o.error = std::string(m->as_string());
    if (const auto* d = err.if_contains("data")) o.result = *d;
    return o;
  }
  o.kind = RpcOutcome::Kind::Ok;
  if (const auto* res = answer->if_contains("result")) o.result = *res;
  return o;
}

RpcOutcome RpcApi::call(std::string_view method, boost::json::object params, bool repeatable) {
  int retries = 0;
  std::chrono::seconds wait{0};
  for (int attempt = 1;; ++attempt) {
    RpcOutcome o;
    bool gave_up = true;
    if (wait > options_.max_wait) {
      o.error = "rate limited for " + std::to_string(wait.count()) + " s";
    } else if ((wait.count() > 0 && !calls_.pause(wait)) || calls_.stopped()) {
      o.error = "stopped";
    } else {
      o = once(method, params);
      gave_up = false;
    }
    o.retries = retries;
    const bool limited = o.kind == RpcOutcome::Kind::Refused && o.code == kRateLimitError;
    const bool again = !gave_up && attempt < options_.max_attempts &&
                       (limited || o.kind == RpcOutcome::Kind::NotSent ||
                        (repeatable && o.kind == RpcOutcome::Kind::Unknown));
    count_attempt(method, o, again, "signal-retry", "method");
    if (!again) return o;
    ++retries;
    wait = std::chrono::seconds(0);
    if (limited) {
      // signal-cli sent nothing: wait what Signal asked, then make the call again.
      wait = rate_limit_wait(o.result);
    } else if (!calls_.pause(options_.retry_pause * attempt)) {
      o.error = "stopped";
      return o;
    }
  }
}

bool RpcApi::check() {
  net::HttpRequest req;
  req.method = "GET";
  req.url = api_url_ + "/api/v1/check";
  req.timeouts.first_byte = std::chrono::seconds(5);
  req.timeouts.idle = std::chrono::seconds(5);
  const net::HttpResult r = calls_.fetch(client_, std::move(req), 4096);
  return !r.error && r.head.status == 200;
}

}  // namespace sigil::channels::signal
