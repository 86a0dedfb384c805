// The only translation unit of model/ that includes Beast and Asio: an OpenAI-compatible streaming client.
//
// Every call is one coroutine on its own strand of the client's io_context. Its sockets, resolver and
// timer live in a CallState shared with the Call handle, so cancel() (posted to the strand) can close
// whatever the coroutine is waiting on; each co_await then checks `cancelled` before reading an error.

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "model/openai/chat_protocol.h"
#include "model/openai/sse_parser.h"
#include "sigil/model/openai.h"

namespace sigil::model {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kMaxErrorBody = 64 * 1024;

struct Endpoint {
  bool tls = false;
  std::string host;         // without brackets, for the resolver, SNI and certificate checks
  std::string port;         // digits
  std::string host_header;  // host[:port] as the Host header wants it
  std::string target;       // path + "/chat/completions"
  bool host_is_ip = false;
};

Endpoint parse_base_url(const std::string& url) {
  Endpoint ep;
  std::string lower;
  for (char c : url.substr(0, 8))
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  std::string_view rest;
  if (lower.rfind("https://", 0) == 0) {
    ep.tls = true;
    rest = std::string_view(url).substr(8);
  } else if (lower.rfind("http://", 0) == 0) {
    rest = std::string_view(url).substr(7);
  } else {
    throw std::invalid_argument("model: base_url must start with http:// or https://, got \"" + url + "\"");
  }
  std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string path(slash == std::string_view::npos ? std::string_view() : rest.substr(slash));
  if (path.find_first_of("?#") != std::string::npos) {
    throw std::invalid_argument("model: base_url must not have a query or fragment: \"" + url + "\"");
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (authority.find('@') != std::string_view::npos) {
    throw std::invalid_argument("model: base_url must not carry credentials; use api_key");
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos)
      throw std::invalid_argument("model: base_url has a broken IPv6 host");
    ep.host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') throw std::invalid_argument("model: base_url has a broken port");
      port = after.substr(1);
    }
  } else {
    std::size_t colon = authority.rfind(':');
    ep.host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (ep.host.empty()) throw std::invalid_argument("model: base_url has no host: \"" + url + "\"");
  if (!port.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      throw std::invalid_argument("model: base_url has a bad port \"" + std::string(port) + "\"");
    }
    ep.port = std::string(port);
  } else {
    ep.port = ep.tls ? "443" : "80";
  }
  boost::system::error_code not_ip;
  asio::ip::make_address(ep.host, not_ip);
  ep.host_is_ip = !not_ip;
  bool ipv6 = ep.host.find(':') != std::string::npos;
  ep.host_header = ipv6 ? "[" + ep.host + "]" : ep.host;
  if (ep.port != (ep.tls ? "443" : "80")) ep.host_header += ":" + ep.port;
  ep.target = path + "/chat/completions";
  return ep;
}

std::string seconds(milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

struct CallState {
  explicit CallState(asio::io_context& io)
      : strand(asio::make_strand(io)), resolver(strand), timer(strand), resolve_timer(strand) {}

  void abort_io() {
    resolver.cancel();
    timer.cancel();
    resolve_timer.cancel();
    beast::error_code ignored;
    if (plain) plain->socket().close(ignored);
    if (tls) beast::get_lowest_layer(*tls).socket().close(ignored);
  }

  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }

  asio::strand<asio::io_context::executor_type> strand;
  tcp::resolver resolver;
  asio::steady_timer timer;          // backoff waits
  asio::steady_timer resolve_timer;  // the resolver has no time-out of its own
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;

  std::shared_ptr<StreamSink> sink;
  std::string body;
  Clock::time_point deadline;
  bool cancelled = false;
  bool resolve_timed_out = false;
  bool delivered = false;  // anything reached the sink: retrying would duplicate it
  std::size_t delivered_bytes = 0;
  int attempts = 0;
};

// What one HTTP exchange ended with.
struct Attempt {
  enum Kind { finished, retry, fail } kind = fail;
  Outcome outcome;  // when finished
  std::string error;
  std::optional<milliseconds> retry_after;
};

Attempt failed(std::string error) { return Attempt{Attempt::fail, {}, std::move(error), {}}; }
Attempt retryable(std::string error) { return Attempt{Attempt::retry, {}, std::move(error), {}}; }
Attempt finished(FinishReason reason) { return Attempt{Attempt::finished, Outcome{reason, {}, 0}, {}, {}}; }

class OpenAiCall final : public Call {
 public:
  explicit OpenAiCall(std::weak_ptr<CallState> state) : state_(std::move(state)) {}
  void cancel() override {
    if (auto state = state_.lock()) {
      asio::post(state->strand, [state] {
        state->cancelled = true;
        state->abort_io();
      });
    }
  }

 private:
  std::weak_ptr<CallState> state_;
};

class OpenAiClient final : public ModelClient {
 public:
  explicit OpenAiClient(OpenAiConfig config)
      : config_(std::move(config)),
        endpoint_(parse_base_url(config_.base_url)),
        ssl_context_(ssl::context::tls_client),
        work_(asio::make_work_guard(io_)) {
    if (config_.io_threads < 1) throw std::invalid_argument("model: io_threads must be at least 1");
    ssl_context_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                             ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    ssl_context_.set_verify_mode(ssl::verify_peer);
    beast::error_code ec;
    if (!config_.ca_file.empty()) {
      ssl_context_.load_verify_file(config_.ca_file, ec);
      if (ec)
        throw std::invalid_argument("model: cannot load ca_file " + config_.ca_file + ": " + ec.message());
    } else if (endpoint_.tls) {
      // Only for https: reading the system trust store takes a noticeable moment.
      ssl_context_.set_default_verify_paths(ec);
      if (ec) throw std::invalid_argument("model: cannot load the system trust store: " + ec.message());
    }
    for (int i = 0; i < config_.io_threads; ++i) threads_.emplace_back([this] { io_.run(); });
  }

  ~OpenAiClient() override {
    {
      std::lock_guard lock(mutex_);
      for (auto& weak : open_) {
        if (auto state = weak.lock()) OpenAiCall(state).cancel();
      }
      open_.clear();
    }
    work_.reset();
    for (auto& thread : threads_) thread.join();
  }

  std::shared_ptr<Call> start(ChatRequest request, std::shared_ptr<StreamSink> sink) override {
    auto state = std::make_shared<CallState>(io_);
    state->sink = std::move(sink);
    state->body = boost::json::serialize(openai::make_request_body(request, config_.model));
    state->deadline = Clock::now() + config_.total_timeout;
    {
      std::lock_guard lock(mutex_);
      std::erase_if(open_, [](const std::weak_ptr<CallState>& w) { return w.expired(); });
      open_.push_back(state);
    }
    asio::co_spawn(state->strand, run(state), asio::detached);
    return std::make_shared<OpenAiCall>(state);
  }

  std::string describe() const override {
    std::string out = "openai " + config_.base_url;
    if (!config_.model.empty()) out += " (" + config_.model + ")";
    return out;
  }

 private:
  asio::awaitable<void> run(std::shared_ptr<CallState> s) {
    Outcome outcome;
    try {
      outcome = co_await run_attempts(s);
    } catch (const std::exception& e) {
      outcome = Outcome{FinishReason::error, one_line(std::string("model: internal error: ") + e.what()), 0};
    }
    if (s->cancelled) outcome = Outcome{FinishReason::cancelled, {}, 0};
    outcome.attempts = s->attempts;
    s->abort_io();  // closes the connection (a stream ended by [DONE] may still be open)
    auto sink = std::move(s->sink);
    sink->on_done(outcome);
  }

  milliseconds remaining(const CallState& s) const {
    return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(s.deadline - Clock::now()));
  }

  // The per-operation limit, shortened to what is left of total_timeout.
  milliseconds limit(const CallState& s, milliseconds op) const { return std::min(op, remaining(s)); }

  std::string total_timeout_message(const CallState& s) const {
    std::string out =
        "model: no complete reply within " + seconds(config_.total_timeout) + " (total time-out)";
    if (s.delivered_bytes > 0) out += " after " + std::to_string(s.delivered_bytes) + " bytes";
    return out;
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

  asio::awaitable<Outcome> run_attempts(std::shared_ptr<CallState> s) {
    for (;;) {
      ++s->attempts;
      Attempt attempt = co_await run_attempt(s);
      if (s->cancelled) co_return Outcome{FinishReason::cancelled, {}, 0};
      if (attempt.kind == Attempt::finished) co_return attempt.outcome;
      if (attempt.kind == Attempt::retry && !s->delivered && s->attempts <= config_.max_retries) {
        milliseconds delay = attempt.retry_after ? *attempt.retry_after : backoff(s->attempts);
        if (delay >= remaining(*s)) {
          co_return Outcome{FinishReason::error,
                            attempt.error + " (no time left to retry within total_timeout " +
                                seconds(config_.total_timeout) + ")",
                            0};
        }
        s->timer.expires_after(delay);
        co_await s->timer.async_wait(kTuple);
        if (s->cancelled) co_return Outcome{FinishReason::cancelled, {}, 0};
        continue;
      }
      std::string error = attempt.error;
      if (s->attempts > 1) error += " (after " + std::to_string(s->attempts) + " attempts)";
      co_return Outcome{FinishReason::error, std::move(error), 0};
    }
  }

  asio::awaitable<Attempt> run_attempt(std::shared_ptr<CallState> s) {
    const Endpoint& ep = endpoint_;
    const std::string where = ep.host + ":" + ep.port;
    s->plain.reset();
    s->tls.reset();
    const Clock::time_point connect_deadline = Clock::now() + limit(*s, config_.connect_timeout);
    const auto connect_left = [&] {
      return std::max(milliseconds(0),
                      std::chrono::duration_cast<milliseconds>(connect_deadline - Clock::now()));
    };
    const auto connect_timeout_error = [&] {
      if (remaining(*s) <= milliseconds(0)) return failed(total_timeout_message(*s));
      return retryable("model: could not connect to " + where + " within " +
                       seconds(config_.connect_timeout) + " (connect time-out)");
    };

    // Resolve.
    s->resolve_timed_out = false;
    s->resolve_timer.expires_after(connect_left());
    s->resolve_timer.async_wait([s](beast::error_code ec) {
      if (ec) return;
      s->resolve_timed_out = true;
      s->resolver.cancel();
    });
    auto [resolve_ec, results] = co_await s->resolver.async_resolve(ep.host, ep.port, kTuple);
    s->resolve_timer.cancel();
    if (s->cancelled) co_return failed("cancelled");
    if (s->resolve_timed_out) co_return connect_timeout_error();
    if (resolve_ec) co_return retryable("model: cannot resolve " + ep.host + ": " + resolve_ec.message());

    // Connect.
    if (ep.tls) {
      s->tls.emplace(s->strand, ssl_context_);
    } else {
      s->plain.emplace(s->strand);
    }
    s->lowest().expires_after(connect_left());
    auto [connect_ec, connected] = co_await s->lowest().async_connect(results, kTuple);
    if (s->cancelled) co_return failed("cancelled");
    if (connect_ec == beast::error::timeout) co_return connect_timeout_error();
    if (connect_ec) co_return retryable("model: cannot connect to " + where + ": " + connect_ec.message());
    s->lowest().socket().set_option(tcp::no_delay(true), connect_ec);

    if (ep.tls) {
      SSL* native = s->tls->native_handle();
      X509_VERIFY_PARAM* param = SSL_get0_param(native);
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      if (ep.host_is_ip) {
        X509_VERIFY_PARAM_set1_ip_asc(param, ep.host.c_str());
      } else {
        // SNI: without it, servers behind shared front ends present the wrong certificate.
        SSL_set_tlsext_host_name(native, ep.host.c_str());
        X509_VERIFY_PARAM_set1_host(param, ep.host.c_str(), 0);
      }
      s->lowest().expires_after(connect_left());
      auto [handshake_ec] = co_await s->tls->async_handshake(ssl::stream_base::client, kTuple);
      if (s->cancelled) co_return failed("cancelled");
      if (handshake_ec == beast::error::timeout) co_return connect_timeout_error();
      if (handshake_ec) {
        long verify = SSL_get_verify_result(native);
        if (verify != X509_V_OK) {
          co_return failed("model: TLS handshake with " + where + " failed: certificate verify failed (" +
                           X509_verify_cert_error_string(verify) + ")");
        }
        co_return retryable("model: TLS handshake with " + where +
                            " failed: " + one_line(handshake_ec.message()));
      }
      co_return co_await exchange(s, *s->tls, where);
    }
    co_return co_await exchange(s, *s->plain, where);
  }

  template <class Stream>
  asio::awaitable<Attempt> exchange(std::shared_ptr<CallState> s, Stream& stream, const std::string& where) {
    const Endpoint& ep = endpoint_;
    http::request<http::string_body> request{http::verb::post, ep.target, 11};
    request.set(http::field::host, ep.host_header);
    request.set(http::field::user_agent, "sigil/0.1");
    request.set(http::field::content_type, "application/json");
    request.set(http::field::accept, "text/event-stream");
    if (!config_.api_key.empty()) request.set(http::field::authorization, "Bearer " + config_.api_key);
    request.body() = s->body;
    request.prepare_payload();

    // The first-byte limit covers sending the request and waiting for the response headers.
    const milliseconds first_byte = limit(*s, config_.first_byte_timeout);
    const bool first_byte_is_total = first_byte < config_.first_byte_timeout;
    s->lowest().expires_after(first_byte);
    auto [write_ec, written] = co_await http::async_write(stream, request, kTuple);
    if (s->cancelled) co_return failed("cancelled");
    if (write_ec == beast::error::timeout) {
      co_return failed(first_byte_is_total ? total_timeout_message(*s)
                                           : "model: sending the request to " + where + " took over " +
                                                 seconds(config_.first_byte_timeout));
    }
    if (write_ec)
      co_return retryable("model: sending the request to " + where + " failed: " + write_ec.message());

    beast::flat_buffer buffer;
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);  // a stream has no length; the SSE parser bounds each event
    auto [header_ec, header_bytes] = co_await http::async_read_header(stream, buffer, parser, kTuple);
    if (s->cancelled) co_return failed("cancelled");
    if (header_ec == beast::error::timeout) {
      co_return failed(first_byte_is_total
                           ? total_timeout_message(*s)
                           : "model: no response from " + where + " within " +
                                 seconds(config_.first_byte_timeout) + " (first-byte time-out)");
    }
    if (header_ec) {
      co_return retryable("model: connection to " + where +
                          " lost before a response: " + header_ec.message());
    }

    std::array<char, 16 * 1024> chunk{};
    // Reads the next piece of the body into `chunk`; {error, bytes}. Each read gets the idle limit.
    auto read_piece = [&]() -> asio::awaitable<std::pair<beast::error_code, std::size_t>> {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      s->lowest().expires_after(limit(*s, config_.idle_timeout));
      auto [ec, n] = co_await http::async_read_some(stream, buffer, parser, kTuple);
      if (ec == http::error::need_buffer) ec = {};
      std::size_t got = chunk.size() - parser.get().body().size;
      co_return std::make_pair(ec, got);
    };
    const auto timeout_reason = [&] {
      return remaining(*s) <= milliseconds(0)
                 ? "no complete reply within " + seconds(config_.total_timeout) + " (total time-out)"
                 : "no data for " + seconds(config_.idle_timeout) + " (idle time-out)";
    };

    const unsigned status = parser.get().result_int();
    if (status < 200 || status > 299) {
      std::string body;
      while (!parser.is_done() && body.size() < kMaxErrorBody) {
        auto [ec, got] = co_await read_piece();
        if (s->cancelled) co_return failed("cancelled");
        body.append(chunk.data(), got);
        if (ec) break;  // what arrived is enough to explain the status
      }
      Attempt attempt;
      attempt.error = "model: HTTP " + std::to_string(status) + " from " + ep.host + ": " +
                      openai::api_error_message(body);
      attempt.kind = (status == 429 || status >= 500) ? Attempt::retry : Attempt::fail;
      if (status == 429 || status == 503) {
        auto it = parser.get().find(http::field::retry_after);
        if (it != parser.get().end()) {
          std::string_view value = it->value();
          unsigned secs = 0;
          auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), secs);
          if (ec == std::errc() && end == value.data() + value.size())
            attempt.retry_after = std::chrono::seconds(secs);
        }
      }
      co_return attempt;
    }

    openai::SseParser sse;
    openai::ChunkDecoder decoder;
    std::vector<openai::SseEvent> events;
    std::optional<FinishReason> finish;
    bool saw_done = false;
    const auto deliver_tool_calls = [&] {
      for (const ToolCall& call : decoder.take_tool_calls()) {
        s->delivered = true;
        s->sink->on_tool_call(call);
      }
    };

    while (!saw_done) {
      if (parser.is_done()) break;
      auto [ec, got] = co_await read_piece();
      if (s->cancelled) co_return failed("cancelled");
      if (got > 0) {
        events.clear();
        sse.feed(std::string_view(chunk.data(), got), events);
        if (sse.failed()) {
          co_return failed("model: stream from " + where + " has an event over the size limit");
        }
        for (const openai::SseEvent& event : events) {
          openai::ChunkDecoder::Step step = decoder.decode(event.data);
          if (!step.error.empty()) co_return failed(one_line("model: " + step.error));
          if (!step.text.empty()) {
            s->delivered = true;
            s->delivered_bytes += step.text.size();
            s->sink->on_text(step.text);
            if (s->cancelled) co_return failed("cancelled");
          }
          if (step.finish && !finish) {
            finish = step.finish;
            deliver_tool_calls();  // they are complete once the choice has finished
          }
          if (step.done) {
            saw_done = true;
            break;
          }
        }
      }
      if (ec && !saw_done) {
        if (parser.is_done()) break;  // a body delimited by the end of the connection
        std::string reason = ec == beast::error::timeout ? timeout_reason() : ec.message();
        if (s->delivered) {
          co_return failed("model stream broke after " + std::to_string(s->delivered_bytes) +
                           " bytes: " + reason);
        }
        if (ec == beast::error::timeout) co_return failed("model: stream from " + where + ": " + reason);
        co_return retryable("model: stream from " + where + " broke before any text: " + reason);
      }
    }
    if (!finish && !saw_done) {
      co_return failed("model stream ended without a finish_reason or [DONE] after " +
                       std::to_string(s->delivered_bytes) + " bytes");
    }
    deliver_tool_calls();
    FinishReason reason = finish.value_or(FinishReason::stop);
    co_return finished(reason);
  }

  OpenAiConfig config_;
  Endpoint endpoint_;
  asio::io_context io_;
  ssl::context ssl_context_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::vector<std::weak_ptr<CallState>> open_;
};

}  // namespace

std::unique_ptr<ModelClient> make_openai_client(OpenAiConfig config) {
  return std::make_unique<OpenAiClient>(std::move(config));
}

}  // namespace sigil::model
