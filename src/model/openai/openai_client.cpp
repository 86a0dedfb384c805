// The OpenAI-compatible streaming client: the retry policy and the OpenAI stream, on net::HttpClient.
//
// A call is a chain of attempts. Each attempt is one net:: request whose handler (AttemptHandler) feeds
// the SSE stream to the chunk decoder as it arrives; its on_end decides what the attempt came to, and
// then either the call ends or a backoff timer (net::IoThreads::after) starts the next attempt. The
// attempts of a call never overlap, so its sink is called from one place at a time.

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <cmath>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "model/openai/chat_protocol.h"
#include "sigil/model/openai.h"
#include "sigil/net/http_client.h"
#include "sigil/net/retry_after.h"
#include "sigil/net/sse_parser.h"
#include "sigil/net/url.h"
#include "sigil/text/diagnostic_text.h"

namespace sigil::model {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;

struct Endpoint {
  std::string url;  // {base_url}/chat/completions
  std::string host;
  std::string where;  // host:port
};

Endpoint parse_base_url(const std::string& base_url) {
  auto parsed = net::parse_url(base_url);
  // Messages name the setting a user writes ([model] url, SIGIL_MODEL_URL), not this struct's field.
  if (auto* error = std::get_if<std::string>(&parsed)) {
    std::string message = "model: url: " + *error;
    if (error->find("credentials") != std::string::npos)
      message += "; put the key in [model] key or SIGIL_MODEL_KEY";
    throw std::invalid_argument(message);
  }
  const net::Url& url = std::get<net::Url>(parsed);
  if (url.scheme != "http" && url.scheme != "https") {
    throw std::invalid_argument("model: url must start with http:// or https://, got \"" + base_url + "\"");
  }
  if (base_url.find_first_of("?#") != std::string::npos) {
    throw std::invalid_argument("model: url must not have a query or fragment: \"" + base_url + "\"");
  }
  return Endpoint{net::without_trailing_slashes(base_url) + "/chat/completions", url.host, url.where()};
}

// What one HTTP exchange ended with.
struct Attempt {
  enum Kind { finished, retry, fail, cancelled } kind = fail;
  FinishReason finish = FinishReason::stop;  // when finished
  std::string error;
  std::optional<milliseconds> retry_after;
  int http_status = 0;         // a failing status the server answered
  std::string server_message;  // with its own message
};

Attempt failed(std::string error) {
  return Attempt{Attempt::fail, {}, text::one_line(std::move(error)), {}, 0, {}};
}
Attempt retryable(std::string error) {
  return Attempt{Attempt::retry, {}, text::one_line(std::move(error)), {}, 0, {}};
}

class OpenAiClient;

struct CallState {
  OpenAiClient* client = nullptr;  // outlives every call: its destructor waits for them
  std::shared_ptr<StreamSink> sink;
  std::string body;
  Clock::time_point deadline;
  // Touched by the attempt in progress only; attempts never overlap.
  bool delivered = false;  // anything reached the sink: retrying would duplicate it
  std::size_t delivered_bytes = 0;
  int attempts = 0;

  // Guards what cancel() reaches from other threads.
  std::mutex mutex;
  bool cancelled = false;
  bool done = false;
  std::shared_ptr<net::HttpCall> http;
  std::shared_ptr<net::Timer> timer;

  bool is_cancelled() {
    std::lock_guard lock(mutex);
    return cancelled;
  }
  void cancel() {
    std::shared_ptr<net::HttpCall> http_call;
    std::shared_ptr<net::Timer> backoff;
    {
      std::lock_guard lock(mutex);
      if (done) return;
      cancelled = true;
      http_call = http;
      backoff = timer;
    }
    if (http_call) http_call->cancel();
    if (backoff) backoff->cancel();
  }
};

class OpenAiCall final : public Call {
 public:
  explicit OpenAiCall(std::weak_ptr<CallState> state) : state_(std::move(state)) {}
  void cancel() override {
    if (auto state = state_.lock()) state->cancel();
  }

 private:
  std::weak_ptr<CallState> state_;
};

class OpenAiClient final : public ModelClient {
 public:
  explicit OpenAiClient(OpenAiConfig config)
      : config_(std::move(config)), endpoint_(parse_base_url(config_.base_url)) {
    if (config_.io_threads < 1) throw std::invalid_argument("model: io_threads must be at least 1");
    io_ = std::make_shared<net::IoThreads>(config_.io_threads);
    net::HttpClientConfig http_config;
    http_config.ca_file = config_.ca_file;
    try {
      http_ = std::make_unique<net::HttpClient>(io_, http_config);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("model: ") + e.what());
    }
  }

  ~OpenAiClient() override {
    std::vector<std::shared_ptr<CallState>> open;
    {
      std::lock_guard lock(mutex_);
      for (auto& weak : open_) {
        if (auto state = weak.lock()) open.push_back(std::move(state));
      }
      open_.clear();
    }
    for (auto& state : open) state->cancel();
    open.clear();
    http_.reset();  // waits for every request's on_end, which ends its call
    io_.reset();    // lets cancelled backoff timers run (ending their calls), then joins the io threads
  }

  std::shared_ptr<Call> start(ChatRequest request, std::shared_ptr<StreamSink> sink) override {
    auto state = std::make_shared<CallState>();
    state->client = this;
    state->sink = std::move(sink);
    state->body = boost::json::serialize(openai::make_request_body(request, config_.model));
    state->deadline = Clock::now() + config_.total_timeout;
    {
      std::lock_guard lock(mutex_);
      std::erase_if(open_, [](const std::weak_ptr<CallState>& w) { return w.expired(); });
      open_.push_back(state);
    }
    begin_attempt(state);
    return std::make_shared<OpenAiCall>(state);
  }

  std::string describe() const override {
    std::string out = "openai " + config_.base_url;
    if (!config_.model.empty()) out += " (" + config_.model + ")";
    return out;
  }

  // Called from the attempt's on_end: ends the call or schedules the next attempt.
  void after_attempt(const std::shared_ptr<CallState>& s, Attempt attempt);

  const OpenAiConfig& config() const { return config_; }
  const Endpoint& endpoint() const { return endpoint_; }

  milliseconds remaining(const CallState& s) const {
    return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(s.deadline - Clock::now()));
  }

  std::string total_timeout_message(const CallState& s) const {
    std::string out = "model: no complete reply within " + text::format_duration(config_.total_timeout) +
                      " (total time-out)";
    if (s.delivered_bytes > 0) out += " after " + std::to_string(s.delivered_bytes) + " bytes";
    return out;
  }

 private:
  void begin_attempt(const std::shared_ptr<CallState>& s);

  // Ends the call: on_done exactly once.
  void finish(const std::shared_ptr<CallState>& s, Outcome outcome) {
    {
      std::lock_guard lock(s->mutex);
      if (s->done) return;
      s->done = true;
      if (s->cancelled) outcome = Outcome{FinishReason::cancelled, {}, 0, 0, {}};
      s->http.reset();
      s->timer.reset();
    }
    outcome.attempts = s->attempts;
    auto sink = std::move(s->sink);
    sink->on_done(outcome);
  }

  milliseconds backoff(int attempt) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    double base = static_cast<double>(config_.backoff_base.count());
    double ceiling =
        std::min(static_cast<double>(config_.backoff_cap.count()), base * std::pow(2.0, attempt - 1));
    // Half fixed, half random: spreads the retries of many calls that failed together.
    double delay = ceiling / 2 + std::uniform_real_distribution<double>(0, ceiling / 2)(rng);
    return milliseconds(static_cast<long long>(delay));
  }

  OpenAiConfig config_;
  Endpoint endpoint_;
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  std::mutex mutex_;
  std::vector<std::weak_ptr<CallState>> open_;
};

// One attempt: reads the response as it arrives and tells the client what it came to.
class AttemptHandler final : public net::HttpHandler {
 public:
  explicit AttemptHandler(std::shared_ptr<CallState> state) : s_(std::move(state)) {}

  void on_head(const net::HttpResponseHead& head) override {
    status_ = head.status;
    if (status_ >= 200 && status_ <= 299) return;
    if (status_ == 429 || status_ == 503) {
      if (const std::string* value = head.find("Retry-After")) {
        if (auto wait = net::parse_retry_after(*value, std::chrono::system_clock::now()))
          retry_after_ = *wait;
      }
    }
  }

  void on_body(std::string_view chunk) override {
    if (outcome_) return;  // decided (e.g. [DONE] seen): the rest is not ours to read
    if (status_ < 200 || status_ > 299) {
      error_body_.append(chunk.substr(0, kMaxErrorBody - error_body_.size()));
      if (error_body_.size() >= kMaxErrorBody) decide(status_attempt());  // enough to explain the status
      return;
    }
    const Endpoint& ep = s_->client->endpoint();
    events_.clear();
    sse_.feed(chunk, events_);
    if (sse_.failed())
      return decide(failed("model: stream from " + ep.where + " has an event over the size limit"));
    for (const net::SseEvent& event : events_) {
      openai::ChunkDecoder::Step step = decoder_.decode(event.data);
      if (!step.error.empty()) return decide(failed("model: " + step.error));
      if (!step.text.empty()) {
        s_->delivered = true;
        s_->delivered_bytes += step.text.size();
        s_->sink->on_text(step.text);
        if (s_->is_cancelled()) return decide(Attempt{Attempt::cancelled, {}, {}, {}, 0, {}});
      }
      if (step.finish && !finish_) {
        finish_ = step.finish;
        deliver_tool_calls();  // they are complete once the choice has finished
      }
      if (step.done) {
        deliver_tool_calls();
        return decide(Attempt{Attempt::finished, finish_.value_or(FinishReason::stop), {}, {}, 0, {}});
      }
    }
  }

  void on_end(const std::optional<net::NetError>& error) override {
    Attempt attempt = outcome_ ? std::move(*outcome_) : conclude(error);
    s_->client->after_attempt(s_, std::move(attempt));
    s_.reset();
  }

 private:
  // Decided before the response ended: stop reading (the connection closes; after [DONE] the stream is
  // usually complete already, and then the connection is kept).
  void decide(Attempt attempt) {
    outcome_ = std::move(attempt);
    std::shared_ptr<net::HttpCall> http;
    {
      std::lock_guard lock(s_->mutex);
      http = s_->http;
    }
    if (http) http->cancel();
  }

  void deliver_tool_calls() {
    for (const ToolCall& call : decoder_.take_tool_calls()) {
      s_->delivered = true;
      s_->sink->on_tool_call(call);
    }
  }

  Attempt status_attempt() {
    Attempt attempt;
    attempt.error =
        text::one_line("model: HTTP " + std::to_string(status_) + " from " + s_->client->endpoint().host +
                       ": " + openai::api_error_message(error_body_));
    attempt.kind = (status_ == 429 || status_ >= 500) ? Attempt::retry : Attempt::fail;
    attempt.retry_after = retry_after_;
    attempt.http_status = status_;
    attempt.server_message = text::one_line(openai::api_error_message(error_body_));
    return attempt;
  }

  Attempt conclude(const std::optional<net::NetError>& error) {
    using K = net::NetErrorKind;
    OpenAiClient& client = *s_->client;
    const std::string& where = client.endpoint().where;
    if (s_->is_cancelled() || (error && error->kind == K::cancelled))
      return Attempt{Attempt::cancelled, {}, {}, {}, 0, {}};
    // A failing status: what arrived of its body is enough to explain it.
    if (status_ != 0 && (status_ < 200 || status_ > 299)) return status_attempt();
    if (!error) {
      if (!finish_) {
        return failed("model stream ended without a finish_reason or [DONE] after " +
                      std::to_string(s_->delivered_bytes) + " bytes");
      }
      deliver_tool_calls();
      return Attempt{Attempt::finished, *finish_, {}, {}, 0, {}};
    }
    const bool in_body = status_ != 0;
    switch (error->kind) {
      case K::deadline:
        if (!in_body) return failed(client.total_timeout_message(*s_));
        return body_failure(where,
                            "no complete reply within " +
                                text::format_duration(client.config().total_timeout) + " (total time-out)",
                            false);
      case K::idle_timeout:
        return body_failure(where, error->detail, false);
      case K::broken:
        return body_failure(where, error->detail, true);
      case K::resolve_failed:
      case K::connect_failed:
      case K::connect_timeout:
      case K::tls_failed:
      case K::send_failed:
      case K::lost_before_response:
        return retryable("model: " + error->message);
      default:
        return failed("model: " + error->message);
    }
  }

  Attempt body_failure(const std::string& where, const std::string& reason, bool retry_if_nothing_delivered) {
    if (s_->delivered) {
      return failed("model stream broke after " + std::to_string(s_->delivered_bytes) + " bytes: " + reason);
    }
    if (!retry_if_nothing_delivered) return failed("model: stream from " + where + ": " + reason);
    return retryable("model: stream from " + where + " broke before any text: " + reason);
  }

  std::shared_ptr<CallState> s_;
  int status_ = 0;
  std::optional<milliseconds> retry_after_;
  std::string error_body_;
  net::SseParser sse_;
  openai::ChunkDecoder decoder_;
  std::vector<net::SseEvent> events_;
  std::optional<FinishReason> finish_;
  std::optional<Attempt> outcome_;
};

void OpenAiClient::begin_attempt(const std::shared_ptr<CallState>& s) {
  net::HttpRequest request;
  request.method = "POST";
  request.url = endpoint_.url;
  request.headers = {{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}};
  if (!config_.api_key.empty()) request.headers.push_back({"Authorization", "Bearer " + config_.api_key});
  request.body = s->body;
  request.timeouts.connect = config_.connect_timeout;
  request.timeouts.first_byte = config_.first_byte_timeout;
  request.timeouts.idle = config_.idle_timeout;
  request.timeouts.deadline = s->deadline;
  {
    std::lock_guard lock(s->mutex);
    if (!s->cancelled) {
      ++s->attempts;
      // Under the lock: cancel() either sees this request or we see its flag. start() never calls the
      // handler itself, so holding the lock here cannot deadlock.
      s->http = http_->start(std::move(request), std::make_shared<AttemptHandler>(s));
      return;
    }
  }
  // Cancelled while waiting to retry: never from start(), which runs before any cancel() can.
  finish(s, Outcome{FinishReason::cancelled, {}, 0, 0, {}});
}

void OpenAiClient::after_attempt(const std::shared_ptr<CallState>& s, Attempt attempt) {
  {
    std::lock_guard lock(s->mutex);
    s->http.reset();
  }
  if (attempt.kind == Attempt::cancelled || s->is_cancelled())
    return finish(s, Outcome{FinishReason::cancelled, {}, 0, 0, {}});
  if (attempt.kind == Attempt::finished) return finish(s, Outcome{attempt.finish, {}, 0, 0, {}});
  if (attempt.kind == Attempt::retry && !s->delivered && s->attempts <= config_.max_retries) {
    milliseconds delay = attempt.retry_after ? *attempt.retry_after : backoff(s->attempts);
    if (delay >= remaining(*s)) {
      return finish(s, Outcome{FinishReason::error,
                               attempt.error + " (no time left to retry within total_timeout " +
                                   text::format_duration(config_.total_timeout) + ")",
                               0, attempt.http_status, attempt.server_message});
    }
    std::lock_guard lock(s->mutex);
    if (!s->cancelled) {
      s->timer = io_->after(delay, [this, s](bool fired) {
        if (fired) return begin_attempt(s);
        finish(s, Outcome{FinishReason::cancelled, {}, 0, 0, {}});
      });
      return;
    }
  }
  if (s->is_cancelled()) return finish(s, Outcome{FinishReason::cancelled, {}, 0, 0, {}});
  std::string error = attempt.error;
  if (s->attempts > 1) error += " (after " + std::to_string(s->attempts) + " attempts)";
  finish(s, Outcome{FinishReason::error, std::move(error), 0, attempt.http_status,
                    std::move(attempt.server_message)});
}

}  // namespace

std::unique_ptr<ModelClient> make_openai_client(OpenAiConfig config) {
  return std::make_unique<OpenAiClient>(std::move(config));
}

}  // namespace sigil::model
