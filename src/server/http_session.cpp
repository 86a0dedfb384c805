// One of the server's three Beast translation units (with websocket_session.cpp and http_server.cpp). The
// answers themselves come from the pure handlers (route.h, admission.h, conversation_routes.h,
// resource_routes.h, sse_stream.h, chat_completions.h); this file reads requests, dispatches them and
// writes what those return.
#include "server/http_session.h"

#include <fmt/format.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "server/admission.h"
#include "server/chat_completions.h"
#include "server/conversation_routes.h"
#include "server/models_route.h"
#include "server/plain_response.h"
#include "server/request_checks.h"
#include "server/resource_routes.h"
#include "server/route.h"
#include "server/session_list.h"
#include "server/sse_stream.h"
#include "server/websocket_session.h"
#include "sigil/log/log.h"

namespace sigil::server {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// A client that has not sent a whole request by then is dropped, so idle sockets cannot pile up.
constexpr auto kRequestTimeout = 30s;

// The peer's address, for the per-address rate limit ("" when the socket has none any more).
std::string remote_address(const tcp::socket& socket) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  return ec ? std::string() : endpoint.address().to_string();
}

std::string_view header_value(const Request& req, http::field field) {
  auto it = req.find(field);
  return it == req.end() ? std::string_view() : std::string_view(it->value().data(), it->value().size());
}

std::string_view header_value(const Request& req, std::string_view name) {
  auto it = req.find(beast::string_view(name.data(), name.size()));
  return it == req.end() ? std::string_view() : std::string_view(it->value().data(), it->value().size());
}

std::string_view view(beast::string_view s) { return {s.data(), s.size()}; }

Response to_beast(PlainResponse plain, unsigned version) {
  Response res{static_cast<http::status>(plain.status), version};
  if (!plain.content_type.empty()) res.set(http::field::content_type, plain.content_type);
  for (const auto& [name, value] : plain.headers) res.set(name, value);
  res.body() = std::move(plain.body);
  return res;
}

class HttpSession final : public Closable,
                          public EventStream,
                          public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(ServerState& state, tcp::socket socket, ConnectionSlot slot)
      : state_(state), address_(remote_address(socket)), stream_(std::move(socket)), slot_(std::move(slot)) {}

  void run() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->do_read(); });
  }

  // Posted by stop(): ends whatever the connection is doing.
  void close_from_server() override {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->close(); });
  }

  // From the turn's observer, on any thread.
  void post_event(std::string event, bool last) override {
    asio::post(stream_.get_executor(), [self = shared_from_this(), event = std::move(event), last]() mutable {
      self->enqueue(std::move(event), last);
    });
  }

  void mark_turn_ended() override {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->turn_ended_ = true; });
  }

 private:
  void do_read() {
    parser_.emplace();
    parser_->body_limit(state_.options.max_body);
    stream_.expires_after(kRequestTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  bool authorized(const Request& req) const {
    return bearer_authorized(header_value(req, http::field::authorization), state_.options.api_token);
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return close();
    if (ec == http::error::body_limit) {
      // The headers are there: a client without the token learns nothing but 401.
      const Request& req = parser_->get();
      head_ = false;  // a HEAD has no body to be too large
      const Route route = route_of(view(req.target()));
      state_.metrics.count_request(route.label);
      begin_log(req, route);
      if (!admitted(req, route, false)) return;
      if (!authorized(req)) return send(unauthorized(), req.version(), false);
      return send(json_error(413, "request body is larger than " + std::to_string(state_.options.max_body) +
                                      " bytes"),
                  req.version(), false);
    }
    if (ec) return close();
    handle(parser_->release());
  }

  // The Host, Origin and Content-Type checks; false after answering the refusal.
  bool admitted(const Request& req, const Route& route, bool keep) {
    const auto origin = req.find(http::field::origin);
    const AdmissionRequest request{
        route.kind, view(req.method_string()), header_value(req, http::field::host),
        origin == req.end() ? std::nullopt : std::optional<std::string_view>(view(origin->value())),
        header_value(req, http::field::content_type)};
    auto refusal = admission_refusal(*state_.policy, request);
    if (!refusal) return true;
    if (refusal->why == Refusal::Why::Host) ++state_.metrics.refused_host;
    if (refusal->why == Refusal::Why::Origin) ++state_.metrics.refused_origin;
    send(std::move(refusal->response), req.version(), keep);
    return false;
  }

  // A webhook of another part of the gateway (HttpServerOptions::webhooks): the hook's own secret header is
  // its authentication, so no token, Host or Origin check; a platform posts from anywhere, to any name.
  const Webhook* webhook_for(std::string_view target) const {
    const std::string_view path = target.substr(0, target.find('?'));
    for (const Webhook& hook : state_.options.webhooks)
      if (!hook.path.empty() && path == hook.path) return &hook;
    return nullptr;
  }

  void serve_webhook(const Webhook& hook, const Request& req) {
    const unsigned version = req.version();
    const bool keep = req.keep_alive();
    if (req.method() == http::verb::get && hook.on_get) {
      const std::string_view target = view(req.target());
      const std::size_t q = target.find('?');
      WebhookAnswer got;
      try {
        got = hook.on_get(q == std::string_view::npos ? std::string_view() : target.substr(q + 1));
      } catch (...) {
        got = {500, "the webhook failed"};
      }
      return send(text_response(got.status, std::move(got.body)), version, keep);
    }
    if (req.method() != http::verb::post) {
      const char* allow = hook.on_get ? "GET, POST" : "POST";
      return send(json_error(405, std::string("method not allowed; use ") + allow).with("Allow", allow),
                  version, keep);
    }
    WebhookAnswer answer;
    try {
      answer = hook.handle(header_value(req, hook.header), req.body());
    } catch (...) {
      answer = {500, "the webhook failed"};
    }
    send(text_response(answer.status, std::move(answer.body)), version, keep);
  }

  void handle(Request req) {
    // HEAD is GET without the body (route.h): the same handler answers, send() leaves the body out.
    head_ = req.method() == http::verb::head;
    if (const Webhook* hook = webhook_for(view(req.target()))) {
      state_.metrics.count_request("webhook");
      begin_log(req, Route{Route::Kind::Unknown, "webhook", {}});
      return serve_webhook(*hook, req);
    }
    const Route route = route_of(view(req.target()));
    state_.metrics.count_request(route.label);
    begin_log(req, route);
    const unsigned version = req.version();
    const bool keep = req.keep_alive();
    if (!admitted(req, route, keep)) return;
    if (!public_route(route.kind) && !authorized(req)) return send(unauthorized(), version, keep);
    if (route.kind == Route::Kind::Unknown) return send(json_error(404, "no such endpoint"), version, keep);
    if (!method_allowed(route.kind, view(req.method_string()))) {
      const std::string allow(allowed_methods(route.kind));
      return send(json_error(405, "method not allowed; use " + allow).with("Allow", allow), version, keep);
    }
    const bool get = req.method() == http::verb::get || head_;
    switch (route.kind) {
      case Route::Kind::Health:
        if (state_.options.health)
          return send(text_response(200, "{\"status\":\"ok\",\"channels\":" + state_.options.health() + "}",
                                    "application/json"),
                      version, keep);
        return send(text_response(200, "ok"), version, keep);
      case Route::Kind::Metrics:
        return send(text_response(200, state_.metrics_text(), "text/plain; version=0.0.4; charset=utf-8"),
                    version, keep);
      case Route::Kind::Page:
        return send(page_response(state_.store, route.param), version, keep);
      case Route::Kind::Messages:
        if (get) return send(history_response(state_.store, route.param, view(req.target())), version, keep);
        return start_turn(version, keep, route.param, req.body());
      case Route::Kind::Settings:
        return send(settings_response(state_.agent, state_.store, *state_.hub, route.param,
                                      view(req.target()), get ? nullptr : &req.body()),
                    version, keep);
      case Route::Kind::Conversations:
        return send(conversations_response(state_.store, view(req.target())), version, keep);
      case Route::Kind::Conversation:
        return send(delete_response(state_.store, *state_.hub, state_.turns, route.param, view(req.target())),
                    version, keep);
      case Route::Kind::Completions:
        return start_completion(req);
      case Route::Kind::Models:
        return send(models_response(state_.options.model_id, route.param, state_.started_unix), version,
                    keep);
      case Route::Kind::WebSocket:
        return upgrade(std::move(req));
      case Route::Kind::Media:
        return serve_media(version, keep, route.param);
      case Route::Kind::Index:
        return send(asset_response("index.html"), version, keep);
      case Route::Kind::Asset:
        return send(asset_response(route.param), version, keep);
      case Route::Kind::Unknown:
        break;  // answered (404) before the method check
    }
  }

  void upgrade(Request req) {
    const unsigned version = req.version();
    auto checked = websocket_query(view(req.target()));
    if (auto* refused = std::get_if<PlainResponse>(&checked))
      return send(std::move(*refused), version, false);
    WebSocketQuery& query = std::get<WebSocketQuery>(checked);
    const std::string& token = state_.options.api_token;
    if (!token.empty() && !authorized(req) &&
        (!query.access_token || !same_secret(*query.access_token, token)))
      return send(unauthorized(), version, false);
    if (!beast::websocket::is_upgrade(req)) {
      return send(json_error(426, "this endpoint is a WebSocket").with("Upgrade", "websocket"), version,
                  false);
    }
    log_request(101);
    closed_ = true;  // the socket is the WebSocket's now; this session does nothing more
    run_websocket_session(state_, std::move(stream_), std::move(slot_), std::move(query), address_,
                          std::move(req));
  }

  void serve_media(unsigned version, bool keep, const std::string& param) {
    MediaResponse media = media_response(*state_.media, param);
    if (!media.file) return send(std::move(media.response), version, keep);
    http::file_body::value_type body;
    beast::error_code ec;
    body.open(media.file->c_str(), beast::file_mode::scan, ec);
    if (ec) return send(json_error(404, "no such media"), version, keep);
    if (head_) {
      Response res{http::status::ok, version};
      res.set(http::field::content_type, media.response.content_type);
      for (const auto& [name, value] : media.response.headers) res.set(name, value);
      res.content_length(body.size());
      return send(std::move(res), keep);
    }
    log_request(200);
    auto res = std::make_shared<http::response<http::file_body>>(http::status::ok, version);
    res->body() = std::move(body);
    res->set(http::field::content_type, media.response.content_type);
    for (const auto& [name, value] : media.response.headers) res->set(name, value);
    res->keep_alive(keep);
    res->prepare_payload();
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code wec, std::size_t) {
      if (wec) return self->close();
      if (res->need_eof()) return self->shutdown_send();
      self->do_read();
    });
  }

  void start_turn(unsigned version, bool keep, const std::string& conversation, const std::string& body);
  void start_completion(const Request& req);

  void send(PlainResponse res, unsigned version, bool keep_alive) {
    send(to_beast(std::move(res), version), keep_alive);
  }

  // The request line of the log (sigil/log/log.h): the route's template, never the URL (a page slug, a
  // media hash and an access_token in the query are capabilities), the status and the time to answer.
  void begin_log(const Request& req, const Route& route) {
    logged_ = false;
    if (!log::enabled(log::Level::info)) return;
    log_method_ = std::string(view(req.method_string()));
    log_route_ = route.label;
    log_started_ = std::chrono::steady_clock::now();
  }

  void log_request(int status) {
    if (logged_ || !log::enabled(log::Level::info)) return;
    logged_ = true;
    const auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - log_started_)
            .count();
    log::write(log::Record{status >= 500 ? log::Level::warn : log::Level::info, "request", {}}
                   .with("method", log_method_)
                   .with("route", log_route_)
                   .with("status", status)
                   .with("ms", fmt::format("{:.1f}", static_cast<double>(us) / 1000.0))
                   .with("peer", address_));
  }

  void send(Response res, bool keep_alive) {
    log_request(static_cast<int>(res.result_int()));
    res_ = std::move(res);
    res_.keep_alive(keep_alive);
    if (head_) {
      // The length GET would have sent (already set for a file), and no body.
      if (!res_.has_content_length()) res_.content_length(res_.body().size());
      res_.body().clear();
    } else {
      res_.prepare_payload();
    }
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

  // ---- a stream (SSE or a streamed completion): raw bytes, in order, then the connection closes
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

  // A streaming client sends nothing; a read that completes with an error means it hung up.
  void watch_client() {
    stream_.socket().async_read_some(asio::buffer(sink_),
                                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                       if (!ec) return self->watch_client();
                                       self->client_gone();
                                     });
  }

  void client_gone() {
    if (!closed_ && !turn_id_.empty() && !turn_ended_) state_.agent.cancel(turn_id_);
    close();
  }

  ServerState& state_;
  const std::string address_;
  beast::tcp_stream stream_;
  ConnectionSlot slot_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response res_;
  bool head_ = false;   // the request being answered is a HEAD
  bool logged_ = true;  // its log line was written (or logging is off)
  std::string log_method_, log_route_;
  std::chrono::steady_clock::time_point log_started_;
  bool closed_ = false;

  std::deque<std::string> queue_;
  bool writing_ = false;
  bool ending_ = false;
  bool turn_ended_ = false;
  std::string turn_id_;
  std::array<char, 512> sink_{};
};

// POST /v1/conversations/{id}/messages: the turn's events as SSE (sse_stream.h), then the connection closes.
void HttpSession::start_turn(unsigned version, bool keep, const std::string& conversation,
                             const std::string& body) {
  auto checked = message_post(conversation, body);
  if (auto* refused = std::get_if<PlainResponse>(&checked)) return send(std::move(*refused), version, keep);
  MessagePost& post = std::get<MessagePost>(checked);
  if (const double wait = state_.rate_check(post.user, address_); wait > 0) {
    return send(json_error(429, state_.rate_message(wait))
                    .with("Retry-After", std::to_string(static_cast<long long>(std::ceil(wait)))),
                version, keep);
  }
  turn_id_ = state_.turns.new_id();
  if (!state_.turns.open(turn_id_, post.user, conversation)) {
    turn_id_.clear();
    return send(json_error(503, "server is stopping"), version, false);
  }
  // The header goes out as raw bytes: the body is an open-ended stream delimited by the close.
  log_request(200);
  stream_.expires_never();
  queue_.push_back(
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: text/event-stream; charset=utf-8\r\n"
      "Cache-Control: no-cache\r\n"
      "X-Content-Type-Options: nosniff\r\n"
      "Connection: close\r\n\r\n");
  write_next();
  watch_client();
  auto observer = std::make_shared<SseStreamObserver>(state_.turns, state_.broadcast_target(),
                                                      shared_from_this(), turn_id_, post.user, conversation);
  state_.start_web_turn(post.user, conversation, post.text, turn_id_, std::nullopt, std::move(observer));
}

// POST /v1/chat/completions: the OpenAI protocol lives in chat_completions.cpp; here it gets the session's
// write queue (stream) or one response (non-stream), and the same hang-up watch as the SSE endpoint.
void HttpSession::start_completion(const Request& req) {
  const unsigned version = req.version();
  auto reply = [this, version](int status, std::string body, bool keep) {
    PlainResponse res;
    res.status = status;
    res.content_type = "application/json";
    res.body = std::move(body);
    send(std::move(res), version, keep);
  };
  completions::ParseResult parsed = completions::parse_request(req.body());
  if (parsed.error)
    return reply(parsed.error->status, completions::error_body(*parsed.error), req.keep_alive());
  auto header = [&req](std::string_view name) {
    auto it = req.find(name);
    return it == req.end() ? std::string() : std::string(it->value().data(), it->value().size());
  };
  completions::TargetResult target = completions::resolve_target(
      *parsed.request, {header("X-Sigil-User"), header("X-Sigil-Conversation"), header("Idempotency-Key")});
  if (target.error)
    return reply(target.error->status, completions::error_body(*target.error), req.keep_alive());
  const completions::TurnTarget& t = *target.target;
  if (const double wait = state_.rate_check(t.user, address_); wait > 0) {
    PlainResponse res;
    res.status = 429;
    res.content_type = "application/json";
    res.with("Retry-After", std::to_string(static_cast<long long>(std::ceil(wait))));
    res.body = completions::error_body(
        {429, state_.rate_message(wait), "rate_limit_error", {}, "rate_limit_exceeded"});
    return send(std::move(res), version, req.keep_alive());
  }
  if (state_.turns.running(t.turn_id)) {
    return reply(
        409,
        completions::error_body({409,
                                 "a request with this Idempotency-Key is still running; retry when it "
                                 "has ended",
                                 "invalid_request_error",
                                 {},
                                 "idempotency_key_in_use"}),
        req.keep_alive());
  }
  if (!state_.turns.open(t.turn_id, t.user, t.conversation)) {
    return reply(503, completions::error_body({503, "server is stopping", "server_error", {}, {}}), false);
  }
  turn_id_ = t.turn_id;
  if (parsed.request->stream) log_request(200);  // a non-stream answer is logged when it is sent
  stream_.expires_never();
  watch_client();  // also for a non-stream answer: a client that hangs up cancels the turn
  TurnRegistry* turns = &state_.turns;
  completions::CompletionObserver::Callbacks callbacks;
  callbacks.write = [self = shared_from_this(), turns, id = t.turn_id](std::string bytes, bool last) {
    if (last) {
      turns->answered(id);
      self->mark_turn_ended();
    }
    self->post_event(std::move(bytes), last);
  };
  callbacks.respond = [self = shared_from_this(), version, turns, id = t.turn_id](int status,
                                                                                  std::string body) {
    turns->answered(id);
    self->mark_turn_ended();
    asio::post(self->stream_.get_executor(), [self, version, status, body = std::move(body)]() mutable {
      if (self->closed_) return;
      PlainResponse res;
      res.status = status;
      res.content_type = "application/json";
      // The model client already retried; a client's retry would run the turn's directives again.
      if (status >= 500) res.with("X-Should-Retry", "false");
      res.body = std::move(body);
      self->send(std::move(res), version, false);
    });
  };
  callbacks.ended = [turns, id = t.turn_id] { turns->closed(id); };
  auto observer = std::make_shared<completions::CompletionObserver>(
      *parsed.request, t.turn_id, static_cast<std::int64_t>(std::time(nullptr)), std::move(callbacks),
      state_.media);
  state_.agent.start_turn(completions::turn_input(*parsed.request, t), std::move(observer));
}

}  // namespace

void run_http_session(ServerState& state, tcp::socket socket, ConnectionSlot slot) {
  auto session = std::make_shared<HttpSession>(state, std::move(socket), std::move(slot));
  state.sessions.track(session);
  session->run();
}

}  // namespace sigil::server
