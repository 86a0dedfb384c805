// The only translation unit of net/ that includes Beast's HTTP parts: the HTTP(S) client.
//
// Every request is one coroutine on the strand of the connection it uses. Its state (the connection, the
// cancel flag) lives in a HttpCallState shared with the HttpCall handle, so cancel() (posted to the strand)
// can close whatever the coroutine is waiting on; each co_await then checks `cancelled` first.

#include "sigil/net/http_client.h"

#include <poll.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <variant>
#include <vector>

#include "net/connection.h"
#include "net/io_threads_impl.h"
#include "net/open_calls.h"

namespace sigil::net {

namespace http = beast::http;
using detail::Clock;
using detail::Connection;
using detail::format_duration;
using detail::kTuple;
using detail::make_error;
using detail::phase_limit;
using detail::PhaseLimit;
using detail::Strand;
using std::chrono::milliseconds;

namespace {

constexpr std::uint32_t kHeaderLimit = 64 * 1024;

bool safe_token(std::string_view text) {
  for (char c : text) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  return true;
}

// A connection to a pinned address is reused only for the same pin: the name's DNS answer may differ.
std::string pool_key(const Url& url, const HttpRequest& request) {
  std::string key = url.scheme + "://" + url.where();
  if (!request.connect_address.empty()) key += "@" + request.connect_address;
  return key;
}

// A pooled connection the server has closed (or written to out of turn) is readable; a usable one is not.
bool still_usable(Connection& c) {
  if (c.buffer.size() != 0) return false;
  if (c.tls && SSL_pending(c.tls->native_handle()) > 0) return false;
  if (!c.lowest().socket().is_open()) return false;
  pollfd fd{c.lowest().socket().native_handle(), POLLIN, 0};
  return ::poll(&fd, 1, 0) == 0;
}

}  // namespace

struct HttpCallState;

struct HttpClient::Impl {
  Impl(asio::io_context& context, HttpClientConfig c)
      : io(context), config(std::move(c)), tls(config.ca_file) {}

  std::shared_ptr<Connection> take_idle(const std::string& key) {
    std::lock_guard lock(mutex);
    auto it = pool.find(key);
    if (it == pool.end()) return nullptr;
    auto& idle = it->second;
    while (!idle.empty()) {
      std::shared_ptr<Connection> c = std::move(idle.back());
      idle.pop_back();
      if (Clock::now() - c->idle_since < config.keep_idle_for && still_usable(*c)) return c;
    }
    return nullptr;
  }

  void give_back(std::shared_ptr<Connection> c) {
    c->idle_since = Clock::now();
    std::lock_guard lock(mutex);
    if (closing) return;
    auto& idle = pool[c->pool_key];
    if (idle.size() < config.max_idle_per_host) idle.push_back(std::move(c));
  }

  asio::io_context& io;
  HttpClientConfig config;
  detail::TlsContext tls;
  std::atomic<std::size_t> opened{0};
  mutable std::mutex mutex;
  std::map<std::string, std::vector<std::shared_ptr<Connection>>> pool;
  bool closing = false;
  detail::OpenCalls<HttpCallState> calls;
};

namespace {

using Impl = HttpClient::Impl;

}  // namespace

// Declared after Impl: it keeps the client's state (and so its TLS context) alive until it is gone.
struct HttpCallState {
  HttpCallState(std::shared_ptr<Impl> c, Strand s) : client(std::move(c)), strand(std::move(s)) {}

  std::shared_ptr<Impl> client;  // first: destroyed last, after the connection that uses its TLS context
  Strand strand;
  HttpRequest request;
  Url url;
  std::shared_ptr<HttpHandler> handler;
  std::shared_ptr<Connection> connection;  // touched only on the strand
  bool reused = false;
  bool reusable = false;  // the response was read completely and the connection may serve another
  std::atomic<bool> cancelled{false};
};

namespace {

class CallHandle final : public HttpCall {
 public:
  explicit CallHandle(std::weak_ptr<HttpCallState> state) : state_(std::move(state)) {}
  void cancel() override {
    if (auto s = state_.lock()) {
      s->cancelled = true;
      asio::post(s->strand, [s] {
        if (s->connection) s->connection->close();
      });
    }
  }

 private:
  std::weak_ptr<HttpCallState> state_;
};

http::request<http::string_body> build_request(const HttpCallState& s, const HttpClientConfig& config) {
  http::request<http::string_body> request;
  http::verb verb = http::string_to_verb(s.request.method);
  if (verb == http::verb::unknown) {
    request.method_string(s.request.method);
  } else {
    request.method(verb);
  }
  request.target(s.url.target());
  request.version(11);
  for (const Header& header : s.request.headers) request.insert(header.name, header.value);
  if (request.find(http::field::host) == request.end()) request.set(http::field::host, s.url.authority());
  if (request.find(http::field::user_agent) == request.end())
    request.set(http::field::user_agent, config.user_agent);
  request.body() = s.request.body;
  request.prepare_payload();
  return request;
}

enum class Step { done, retry_fresh };

template <class Stream>
asio::awaitable<std::variant<Step, NetError>> exchange(std::shared_ptr<HttpCallState> s, Stream& stream) {
  const std::string where = s->url.where();
  const HttpTimeouts& timeouts = s->request.timeouts;
  Connection& c = *s->connection;
  const NetError cancelled = make_error(NetErrorKind::cancelled, "cancelled", "cancelled");
  http::request<http::string_body> request = build_request(*s, s->client->config);

  // The first-byte limit covers sending the request and waiting for the response head.
  const PhaseLimit first_byte = phase_limit(timeouts.first_byte, timeouts.deadline);
  const auto deadline_error = [&](const std::string& phase) {
    return make_error(NetErrorKind::deadline, "deadline passed while " + phase + " (" + where + ")",
                      "deadline passed while " + phase);
  };
  c.lowest().expires_at(first_byte.at);
  auto [write_ec, written] = co_await http::async_write(stream, request, kTuple);
  if (s->cancelled) co_return cancelled;
  if (write_ec == beast::error::timeout) {
    if (first_byte.by_deadline) co_return deadline_error("sending the request");
    co_return make_error(
        NetErrorKind::send_timeout,
        "sending the request to " + where + " took over " + format_duration(timeouts.first_byte),
        "sending took over " + format_duration(timeouts.first_byte));
  }
  if (write_ec) {
    if (s->reused) co_return Step::retry_fresh;
    co_return make_error(NetErrorKind::send_failed,
                         "sending the request to " + where + " failed: " + write_ec.message(),
                         write_ec.message());
  }

  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);  // bodies are streamed to the handler, which bounds what it keeps
  parser.header_limit(kHeaderLimit);
  if (request.method() == http::verb::head) parser.skip(true);
  auto [head_ec, head_bytes] = co_await http::async_read_header(stream, c.buffer, parser, kTuple);
  if (s->cancelled) co_return cancelled;
  if (head_ec == beast::error::timeout) {
    if (first_byte.by_deadline) co_return deadline_error("waiting for the response");
    co_return make_error(
        NetErrorKind::first_byte_timeout,
        "no response from " + where + " within " + format_duration(timeouts.first_byte) +
            " (first-byte time-out)",
        "no response within " + format_duration(timeouts.first_byte) + " (first-byte time-out)");
  }
  if (head_ec) {
    // A pooled connection the server closed just as we reused it: most likely nothing was processed, so
    // send again, unless the caller said the request must not risk taking effect twice.
    if (s->reused && !parser.got_some() && s->request.resend_on_stale_connection) co_return Step::retry_fresh;
    if (parser.got_some() && head_ec != http::error::end_of_stream &&
        head_ec != asio::error::connection_reset && head_ec != asio::error::eof) {
      co_return make_error(NetErrorKind::bad_response,
                           "bad response head from " + where + ": " + head_ec.message(), head_ec.message());
    }
    co_return make_error(NetErrorKind::lost_before_response,
                         "connection to " + where + " lost before a response: " + head_ec.message(),
                         head_ec.message());
  }

  HttpResponseHead head;
  head.status = static_cast<int>(parser.get().result_int());
  head.reason = std::string(parser.get().reason());
  for (const auto& field : parser.get()) {
    head.headers.push_back(Header{std::string(field.name_string()), std::string(field.value())});
  }
  s->handler->on_head(head);

  std::array<char, 16 * 1024> chunk{};
  while (!parser.is_done()) {
    if (s->cancelled) co_return cancelled;
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    const PhaseLimit idle = phase_limit(timeouts.idle, timeouts.deadline);
    c.lowest().expires_at(idle.at);
    auto [ec, n] = co_await http::async_read_some(stream, c.buffer, parser, kTuple);
    if (ec == http::error::need_buffer) ec = {};
    const std::size_t got = chunk.size() - parser.get().body().size;
    if (s->cancelled && !parser.is_done()) co_return cancelled;
    if (got > 0) s->handler->on_body(std::string_view(chunk.data(), got));
    if (!ec) continue;
    if (parser.is_done()) break;  // a body delimited by the end of the connection
    if (ec == beast::error::timeout) {
      if (idle.by_deadline) co_return deadline_error("reading the response");
      std::string detail = "no data for " + format_duration(timeouts.idle) + " (idle time-out)";
      co_return make_error(NetErrorKind::idle_timeout, "response from " + where + ": " + detail, detail);
    }
    co_return make_error(NetErrorKind::broken, "response from " + where + " broke: " + ec.message(),
                         ec.message());
  }
  s->reusable = parser.get().keep_alive() && request.keep_alive();
  co_return Step::done;
}

asio::awaitable<std::optional<NetError>> run_exchange(std::shared_ptr<HttpCallState> s) {
  Impl& client = *s->client;
  for (;;) {
    if (s->cancelled) co_return make_error(NetErrorKind::cancelled, "cancelled", "cancelled");
    if (!s->connection) {
      s->connection = std::make_shared<Connection>(s->strand);
      s->connection->pool_key = pool_key(s->url, s->request);
      s->reused = false;
      ++client.opened;
      auto error = co_await detail::open_connection(*s->connection, s->url, client.tls,
                                                    s->request.timeouts.connect, s->request.timeouts.deadline,
                                                    s->cancelled, s->request.connect_address);
      if (error) co_return error;
    }
    Connection& c = *s->connection;
    // Not a conditional expression: g++ 12 miscompiles co_await inside ?: (frees a temporary twice).
    std::variant<Step, NetError> result;
    if (c.tls) {
      result = co_await exchange(s, *c.tls);
    } else {
      result = co_await exchange(s, *c.plain);
    }
    if (auto* error = std::get_if<NetError>(&result)) co_return std::move(*error);
    if (std::get<Step>(result) == Step::done) co_return std::nullopt;
    s->connection->close();  // stale: try once more on a fresh connection
    s->connection.reset();
  }
}

asio::awaitable<void> run(std::shared_ptr<HttpCallState> s) {
  std::optional<NetError> error;
  try {
    error = co_await run_exchange(s);
  } catch (const std::exception& e) {
    error = make_error(NetErrorKind::internal, std::string("internal error: ") + e.what(), e.what());
  }
  if (error && s->cancelled) error = make_error(NetErrorKind::cancelled, "cancelled", "cancelled");
  if (auto connection = std::move(s->connection)) {
    if (!error && s->reusable && still_usable(*connection)) {
      s->client->give_back(std::move(connection));
    } else {
      connection->close();
    }
  }
  auto handler = std::move(s->handler);
  handler->on_end(error);
  s->client->calls.ended();
}

}  // namespace

HttpClient::HttpClient(std::shared_ptr<IoThreads> io, HttpClientConfig config)
    : io_(std::move(io)), impl_(std::make_shared<Impl>(io_->impl().io, std::move(config))) {}

HttpClient::~HttpClient() {
  std::map<std::string, std::vector<std::shared_ptr<Connection>>> pool;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->closing = true;
    pool.swap(impl_->pool);
  }
  for (auto& weak : impl_->calls.take_all()) {
    if (auto state = weak.lock()) CallHandle(state).cancel();
  }
  pool.clear();  // idle connections have no operation pending: closing them here is safe
  impl_->calls.wait_all_ended();
}

std::shared_ptr<HttpCall> HttpClient::start(HttpRequest request, std::shared_ptr<HttpHandler> handler) {
  std::optional<NetError> early;
  Url url;
  auto parsed = parse_url(request.url);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    early = make_error(NetErrorKind::bad_url, *error, *error);
  } else {
    url = std::get<Url>(std::move(parsed));
    if (url.scheme != "http" && url.scheme != "https") {
      early = make_error(NetErrorKind::bad_url, "HTTP client needs an http:// or https:// URL",
                         "not an http(s) URL");
    }
  }
  bool safe = safe_token(request.method) && !request.method.empty();
  for (const Header& header : request.headers)
    safe = safe && safe_token(header.name) && safe_token(header.value);
  if (!early && !safe) {
    early = make_error(NetErrorKind::bad_request, "request method or header has CR, LF or NUL",
                       "method or header has CR, LF or NUL");
  }

  std::shared_ptr<Connection> idle;
  if (!early) idle = impl_->take_idle(pool_key(url, request));
  auto state = std::make_shared<HttpCallState>(impl_, idle ? idle->strand : asio::make_strand(impl_->io));
  state->request = std::move(request);
  state->url = std::move(url);
  state->handler = std::move(handler);
  state->connection = std::move(idle);
  state->reused = state->connection != nullptr;
  impl_->calls.add(state);
  if (early) {
    asio::post(state->strand, [state, error = std::move(*early)] {
      auto handler = std::move(state->handler);
      handler->on_end(error);
      state->client->calls.ended();
    });
  } else {
    asio::co_spawn(state->strand, run(state), asio::detached);
  }
  return std::make_shared<CallHandle>(state);
}

std::size_t HttpClient::connections_opened() const noexcept { return impl_->opened.load(); }

std::size_t HttpClient::idle_connections() const {
  std::lock_guard lock(impl_->mutex);
  std::size_t n = 0;
  for (const auto& [key, idle] : impl_->pool) n += idle.size();
  return n;
}

}  // namespace sigil::net
