// The only translation unit that includes Beast for the server (Beast compiles slowly).
#include "sigil/server/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace sigil::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

constexpr std::string_view kPageCsp =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; script-src 'none'";
constexpr std::string_view kPageCspScripts =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; script-src 'unsafe-inline'";
// A client that has not sent a whole request by then is dropped, so idle sockets cannot pile up.
constexpr auto kRequestTimeout = 30s;

std::string_view op_name(exec::Delivery::Op op) {
  switch (op) {
    case exec::Delivery::Op::Text:
      return "text";
    case exec::Delivery::Op::File:
      return "file";
    case exec::Delivery::Op::Voice:
      return "voice";
    case exec::Delivery::Op::Reaction:
      return "reaction";
    case exec::Delivery::Op::Message:
      return "message";
  }
  return "unknown";
}

// The delivery as the web client sees it: every field that is set, never the payload bytes (a file is
// fetched separately, later; an SSE line is no place for megabytes).
json::object client_delivery_json(const exec::Delivery& d) {
  json::object o;
  o["op"] = op_name(d.op);
  auto put = [&o](std::string_view key, const std::string& value) {
    if (!value.empty()) o[key] = value;
  };
  put("text", d.text);
  put("path", d.path);
  put("kind", d.kind);
  put("caption", d.caption);
  put("sha256", d.sha256);
  put("emoji", d.emoji);
  put("message", d.message);
  put("channel", d.channel);
  put("chat", d.chat);
  if (d.op == exec::Delivery::Op::Voice) o["duration_ms"] = d.duration_ms;
  return o;
}

// One SSE event; boost::json never writes a raw newline, so `data:` is always one line.
std::string sse_event(std::string_view event, const json::value& data) {
  std::string out = "event: ";
  out.append(event);
  out += "\ndata: ";
  out += json::serialize(data);
  out += "\n\n";
  return out;
}

bool valid_conversation_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// Constant time in the token's content, so a remote client cannot find it byte by byte.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

struct Route {
  enum class Kind : unsigned char { Health, Metrics, Page, Messages, Unknown } kind = Kind::Unknown;
  std::string label;  // the metrics label: the template, so raw URLs never blow up the series count
  std::string param;  // slug or conversation id
};

Route route_of(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/healthz") return {Route::Kind::Health, "/healthz", {}};
  if (path == "/metrics") return {Route::Kind::Metrics, "/metrics", {}};
  constexpr std::string_view pages = "/pages/";
  if (path.starts_with(pages) && path.size() > pages.size() &&
      path.find('/', pages.size()) == std::string_view::npos) {
    return {Route::Kind::Page, "/pages/{slug}", std::string(path.substr(pages.size()))};
  }
  constexpr std::string_view conv = "/v1/conversations/";
  constexpr std::string_view messages = "/messages";
  if (path.starts_with(conv) && path.ends_with(messages) && path.size() > conv.size() + messages.size()) {
    std::string_view id = path.substr(conv.size(), path.size() - conv.size() - messages.size());
    if (id.find('/') == std::string_view::npos) {
      return {Route::Kind::Messages, "/v1/conversations/{id}/messages", std::string(id)};
    }
  }
  return {Route::Kind::Unknown, "other", {}};
}

bool is_loopback(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

}  // namespace

class HttpServer::Impl {
 public:
  class Session;
  class StreamObserver;

  Impl(agent::Agent& agent, store::Store& store, HttpServerOptions options)
      : agent_(agent), store_(store), options_(std::move(options)), rng_(std::random_device{}()) {}

  ~Impl() { stop(); }

  unsigned short start();
  void stop();

  // ---- shared state the sessions use
  agent::Agent& agent_;
  store::Store& store_;
  const HttpServerOptions options_;

  void count_request(const std::string& label) {
    std::lock_guard lock(mu_);
    ++requests_[label];
  }

  std::string metrics_text() {
    std::string out;
    out +=
        "# HELP sigil_http_requests_total HTTP requests received, by route.\n"
        "# TYPE sigil_http_requests_total counter\n";
    {
      std::lock_guard lock(mu_);
      for (const auto& [label, count] : requests_) {
        out += "sigil_http_requests_total{path=\"" + label + "\"} " + std::to_string(count) + "\n";
      }
    }
    out +=
        "# HELP sigil_turns_total Turns started through the HTTP API.\n"
        "# TYPE sigil_turns_total counter\n"
        "sigil_turns_total " +
        std::to_string(turns_total_.load()) +
        "\n"
        "# HELP sigil_turns_active Turns the agent is running or holding.\n"
        "# TYPE sigil_turns_active gauge\n"
        "sigil_turns_active " +
        std::to_string(agent_.active_turns()) + "\n";
    return out;
  }

  // Ids are random, not a counter: the executor's exactly-once keys include the turn id, and a restarted
  // server must never reuse the results of an earlier process's turn.
  std::string new_turn_id() {
    std::lock_guard lock(mu_);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng_()));
    return "web-" + std::string(buf);
  }

  // False when the server is stopping: no new turns then.
  bool turn_opened(const std::string& turn_id) {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    open_turns_.insert(turn_id);
    ++turns_total_;
    return true;
  }
  void turn_closed(const std::string& turn_id) {
    std::lock_guard lock(mu_);
    open_turns_.erase(turn_id);
    turns_cv_.notify_all();
  }

  void track(const std::shared_ptr<Session>& session) {
    std::lock_guard lock(mu_);
    std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
    sessions_.push_back(session);
  }

 private:
  void do_accept();

  asio::io_context ioc_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::optional<tcp::acceptor> acceptor_;
  std::vector<std::thread> threads_;
  bool started_ = false;

  std::mutex mu_;
  std::condition_variable turns_cv_;
  bool stopping_ = false;
  std::set<std::string> open_turns_;
  std::vector<std::weak_ptr<Session>> sessions_;
  std::map<std::string, std::uint64_t> requests_;
  std::atomic<std::uint64_t> turns_total_{0};
  std::mt19937_64 rng_;
};

// One connection: requests one after another (keep-alive), or one SSE stream after which it closes.
class HttpServer::Impl::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Impl& server, tcp::socket socket) : server_(server), stream_(std::move(socket)) {}

  void run() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->do_read(); });
  }

  // Posted by stop(): ends whatever the connection is doing.
  void close_from_server() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->close(); });
  }

  // From the observer, on any thread.
  void post_event(std::string event, bool last) {
    asio::post(stream_.get_executor(), [self = shared_from_this(), event = std::move(event), last]() mutable {
      self->enqueue(std::move(event), last);
    });
  }

 private:
  using Request = http::request<http::string_body>;
  using Response = http::response<http::string_body>;

  void do_read() {
    parser_.emplace();
    parser_->body_limit(server_.options_.max_body);
    stream_.expires_after(kRequestTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  bool authorized(const Request& req) const {
    const std::string& token = server_.options_.api_token;
    if (token.empty()) return true;
    auto it = req.find(http::field::authorization);
    if (it == req.end()) return false;
    const std::string_view value(it->value().data(), it->value().size());
    constexpr std::string_view bearer = "Bearer ";
    return value.starts_with(bearer) && same_secret(value.substr(bearer.size()), token);
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return close();
    if (ec == http::error::body_limit) {
      // The headers are there: a client without the token learns nothing but 401.
      const Request& req = parser_->get();
      const Route route = route_of(std::string_view(req.target().data(), req.target().size()));
      server_.count_request(route.label);
      if (!authorized(req)) return send_unauthorized(req.version(), false);
      return send(error_response(
                      req.version(), http::status::payload_too_large,
                      "request body is larger than " + std::to_string(server_.options_.max_body) + " bytes"),
                  false);
    }
    if (ec) return close();
    handle(parser_->release());
  }

  Response error_response(unsigned version, http::status status, const std::string& message) {
    Response res{status, version};
    res.set(http::field::content_type, "application/json");
    res.body() = json::serialize(json::object{{"error", message}});
    return res;
  }

  Response text_response(unsigned version, http::status status, std::string body,
                         std::string_view type = "text/plain; charset=utf-8") {
    Response res{status, version};
    res.set(http::field::content_type, type);
    res.body() = std::move(body);
    return res;
  }

  void send_unauthorized(unsigned version, bool keep_alive) {
    Response res = error_response(version, http::status::unauthorized, "missing or wrong bearer token");
    res.set(http::field::www_authenticate, "Bearer");
    send(std::move(res), keep_alive);
  }

  void handle(Request req) {
    const Route route = route_of(std::string_view(req.target().data(), req.target().size()));
    server_.count_request(route.label);
    const unsigned version = req.version();
    const bool keep = req.keep_alive();
    if (route.kind != Route::Kind::Health && !authorized(req)) return send_unauthorized(version, keep);

    const bool get = req.method() == http::verb::get;
    const bool post = req.method() == http::verb::post;
    auto not_allowed = [&](std::string_view allow) {
      Response res = error_response(version, http::status::method_not_allowed,
                                    "method not allowed; use " + std::string(allow));
      res.set(http::field::allow, allow);
      send(std::move(res), keep);
    };
    switch (route.kind) {
      case Route::Kind::Health:
        if (!get) return not_allowed("GET");
        return send(text_response(version, http::status::ok, "ok"), keep);
      case Route::Kind::Metrics:
        if (!get) return not_allowed("GET");
        return send(text_response(version, http::status::ok, server_.metrics_text(),
                                  "text/plain; version=0.0.4; charset=utf-8"),
                    keep);
      case Route::Kind::Page:
        if (!get) return not_allowed("GET");
        return serve_page(version, keep, route.param);
      case Route::Kind::Messages:
        if (!post) return not_allowed("POST");
        return start_turn(version, keep, route.param, req.body());
      case Route::Kind::Unknown:
        break;
    }
    send(error_response(version, http::status::not_found, "no such endpoint"), keep);
  }

  void serve_page(unsigned version, bool keep, const std::string& slug) {
    auto page = server_.store_.get_page(slug);
    if (!page.ok()) {
      return send(error_response(version, http::status::internal_server_error, "store: " + page.error()),
                  keep);
    }
    if (!page->has_value()) {
      return send(text_response(version, http::status::not_found, "no such page"), keep);
    }
    const store::Page& p = **page;
    Response res = text_response(version, http::status::ok, p.html, "text/html; charset=utf-8");
    res.set("Content-Security-Policy", p.csp_allows_scripts ? kPageCspScripts : kPageCsp);
    res.set("X-Content-Type-Options", "nosniff");
    // A page is unguessable but public: never cached by shared proxies beyond its owner's control.
    res.set(http::field::cache_control, "no-store");
    send(std::move(res), keep);
  }

  void start_turn(unsigned version, bool keep, const std::string& conversation, const std::string& body);

  void send(Response res, bool keep_alive) {
    res_ = std::move(res);
    res_.keep_alive(keep_alive);
    res_.prepare_payload();
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      if (self->res_.need_eof()) return self->shutdown_send();
      self->do_read();
    });
  }

  void shutdown_send() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  void close() {
    if (closed_) return;
    closed_ = true;  // the queue stays: a write in flight still points into its front
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  // ---- the SSE stream
  void enqueue(std::string event, bool last) {
    if (closed_) return;
    queue_.push_back(std::move(event));
    if (last) ending_ = true;
    if (!writing_) write_next();
  }

  void write_next() {
    if (closed_) return;
    if (queue_.empty()) {
      // Everything went out: close now rather than wait for the client, which may never hang up.
      if (ending_) close();
      return;
    }
    writing_ = true;
    asio::async_write(stream_.socket(), asio::buffer(queue_.front()),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        self->writing_ = false;
                        if (ec) return self->client_gone();
                        self->queue_.pop_front();
                        self->write_next();
                      });
  }

  // An SSE client sends nothing; a read that completes with an error means it hung up.
  void watch_client() {
    stream_.socket().async_read_some(asio::buffer(sink_),
                                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                       if (!ec) return self->watch_client();
                                       self->client_gone();
                                     });
  }

  void client_gone() {
    if (!closed_ && !turn_id_.empty() && !turn_ended_) server_.agent_.cancel(turn_id_);
    close();
  }

 public:
  void mark_turn_ended() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->turn_ended_ = true; });
  }

 private:
  Impl& server_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response res_;
  bool closed_ = false;

  std::deque<std::string> queue_;
  bool writing_ = false;
  bool ending_ = false;
  bool turn_ended_ = false;
  std::string turn_id_;
  std::array<char, 512> sink_{};
};

// Turns agent callbacks into SSE events on the session's strand. It lets go of the session at
// on_turn_end: the agent may keep the observer after the server (and its io_context) is gone.
class HttpServer::Impl::StreamObserver final : public agent::TurnObserver {
 public:
  StreamObserver(Impl& server, std::shared_ptr<Session> session, std::string turn_id)
      : server_(server), session_(std::move(session)), turn_id_(std::move(turn_id)) {}

  void on_text(std::string_view text) override {
    if (text.empty()) return;
    emit(sse_event("text", json::object{{"text", text}}), false);
  }
  void on_delivery(const exec::Delivery& delivery) override {
    emit(sse_event("delivery", client_delivery_json(delivery)), false);
  }
  void on_model_call(int n) override { emit(sse_event("model_call", json::object{{"call", n}}), false); }
  void on_turn_end(const agent::TurnSummary& summary) override {
    json::array diagnostics;
    for (const auto& d : summary.diagnostics) diagnostics.emplace_back(d);
    json::object end{{"turn_id", summary.turn_id},
                     {"status", agent::to_string(summary.status)},
                     {"diagnostics", std::move(diagnostics)}};
    std::shared_ptr<Session> session;
    {
      std::lock_guard lock(mu_);
      session = std::move(session_);
    }
    if (session) {
      session->mark_turn_ended();
      session->post_event(sse_event("end", end), true);
      session.reset();  // the posted handlers own it now
    }
    server_.turn_closed(turn_id_);  // last: stop() may destroy the io_context right after this
  }

 private:
  void emit(std::string event, bool last) {
    std::lock_guard lock(mu_);
    if (session_) session_->post_event(std::move(event), last);
  }

  Impl& server_;
  std::mutex mu_;
  std::shared_ptr<Session> session_;
  std::string turn_id_;
};

void HttpServer::Impl::Session::start_turn(unsigned version, bool keep, const std::string& conversation,
                                           const std::string& body) {
  if (!valid_conversation_id(conversation)) {
    return send(error_response(version, http::status::bad_request,
                               "conversation id must be 1 to 128 of A-Z a-z 0-9 . _ -"),
                keep);
  }
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) {
    return send(error_response(version, http::status::bad_request,
                               "body must be a JSON object like {\"text\":\"hello\",\"user\":\"web\"}"),
                keep);
  }
  const json::object& obj = parsed.as_object();
  const json::value* text = obj.if_contains("text");
  if (!text || !text->is_string() || text->as_string().empty()) {
    return send(error_response(version, http::status::bad_request, "\"text\" must be a non-empty string"),
                keep);
  }
  std::string user = "web";
  if (const json::value* u = obj.if_contains("user")) {
    if (!u->is_string() || u->as_string().empty()) {
      return send(error_response(version, http::status::bad_request,
                                 "\"user\" must be a non-empty string when given"),
                  keep);
    }
    user = std::string(u->as_string());
  }

  turn_id_ = server_.new_turn_id();
  if (!server_.turn_opened(turn_id_)) {
    turn_id_.clear();
    return send(error_response(version, http::status::service_unavailable, "server is stopping"), false);
  }
  // The header goes out as raw bytes: the body is an open-ended stream delimited by the close.
  stream_.expires_never();
  queue_.push_back(
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: text/event-stream; charset=utf-8\r\n"
      "Cache-Control: no-cache\r\n"
      "X-Content-Type-Options: nosniff\r\n"
      "Connection: close\r\n\r\n");
  write_next();
  watch_client();
  auto observer = std::make_shared<StreamObserver>(server_, shared_from_this(), turn_id_);
  server_.agent_.start_turn(
      agent::TurnInput{std::move(user), conversation, std::string(text->as_string()), turn_id_},
      std::move(observer));
}

void HttpServer::Impl::do_accept() {
  acceptor_->async_accept(asio::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_->is_open()) return;
    if (!ec) {
      auto session = std::make_shared<Session>(*this, std::move(socket));
      track(session);
      session->run();
    }
    do_accept();
  });
}

unsigned short HttpServer::Impl::start() {
  if (started_) return acceptor_->local_endpoint().port();
  const std::string& host = options_.host;
  if (!is_loopback(host) && options_.api_token.empty()) {
    throw HttpServerError("http server: refusing to listen on non-loopback host \"" + host +
                          "\" without an api_token; set an api_token or bind 127.0.0.1");
  }
  boost::system::error_code ec;
  const auto address =
      host == "localhost" ? asio::ip::make_address("127.0.0.1") : asio::ip::make_address(host, ec);
  if (ec) throw HttpServerError("http server: host \"" + host + "\" is not an IP address");
  const tcp::endpoint endpoint{address, options_.port};
  // On its own strand: with several io threads, stop()'s close must not race the accept handler.
  tcp::acceptor acceptor(asio::make_strand(ioc_));
  auto fail = [&](std::string_view what) {
    throw HttpServerError("http server: cannot " + std::string(what) + " " + host + ":" +
                          std::to_string(options_.port) + ": " + ec.message());
  };
  acceptor.open(endpoint.protocol(), ec);
  if (ec) fail("open a socket for");
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) fail("set reuse_address on");
  acceptor.bind(endpoint, ec);
  if (ec) fail("bind");
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) fail("listen on");
  acceptor_.emplace(std::move(acceptor));
  const unsigned short port = acceptor_->local_endpoint().port();
  started_ = true;
  work_.emplace(ioc_.get_executor());
  do_accept();
  const unsigned threads = std::max(1u, options_.threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { ioc_.run(); });
  return port;
}

void HttpServer::Impl::stop() {
  std::vector<std::string> turns;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    turns.assign(open_turns_.begin(), open_turns_.end());
  }
  if (!started_) return;
  // Closed (and waited for) before the sessions are collected, so none is accepted after that.
  std::promise<void> closed;
  asio::post(acceptor_->get_executor(), [this, &closed] {
    beast::error_code ec;
    acceptor_->close(ec);
    closed.set_value();
  });
  closed.get_future().wait();
  // The turns end (cancelled) before the io threads stop, so their last events still find a strand.
  // Cancel again while waiting: a turn queued behind another, or one just being started, may not have
  // been cancellable the first time.
  for (;;) {
    for (const auto& id : turns) agent_.cancel(id);
    std::unique_lock lock(mu_);
    if (turns_cv_.wait_for(lock, 100ms, [this] { return open_turns_.empty(); })) break;
    turns.assign(open_turns_.begin(), open_turns_.end());
  }
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(mu_);
    for (const auto& w : sessions_) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
    sessions_.clear();
  }
  for (const auto& s : live) s->close_from_server();
  live.clear();
  work_.reset();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

HttpServer::HttpServer(agent::Agent& agent, store::Store& store, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(agent, store, std::move(options))) {}

HttpServer::~HttpServer() = default;

unsigned short HttpServer::start() { return impl_->start(); }

void HttpServer::stop() { impl_->stop(); }

}  // namespace sigil::server
