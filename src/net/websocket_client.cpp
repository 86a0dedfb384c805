// The only translation unit of net/ that includes Beast's WebSocket parts: the WebSocket client.
//
// One coroutine per connection connects (connection.cpp), upgrades and then reads until the end; a
// second, short-lived coroutine drains the outbox whenever messages wait and no write is in flight.
// All state is touched on the connection's strand; send_text/close from other threads post there.

#include "sigil/net/websocket_client.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <variant>
#include <vector>

#include "net/connection.h"
#include "net/io_threads_impl.h"
#include "net/open_calls.h"

namespace sigil::net {

namespace http = beast::http;
namespace websocket = beast::websocket;
using detail::Clock;
using detail::Connection;
using detail::format_duration;
using detail::kTuple;
using detail::make_error;
using detail::Strand;

namespace {

std::string reason_text(const websocket::close_reason& reason) {
  return std::string(reason.reason.data(), reason.reason.size());
}
}  // namespace

struct WebSocketClient::Impl {
  Impl(asio::io_context& context, WebSocketClientConfig c)
      : io(context), config(std::move(c)), tls(config.ca_file) {}

  asio::io_context& io;
  WebSocketClientConfig config;
  detail::TlsContext tls;
  detail::OpenCalls<WebSocket> sessions;
};

namespace {

using Impl = WebSocketClient::Impl;
using PlainWs = websocket::stream<beast::tcp_stream>;
using TlsWs = websocket::stream<detail::TlsStream>;

class Session final : public WebSocket, public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<Impl> c, Strand s) : client(std::move(c)), strand(std::move(s)) {}

  void send_text(std::string message) override {
    asio::post(strand, [self = shared_from_this(), message = std::move(message)]() mutable {
      if (self->close_requested || self->finished) return;
      self->outbox.push_back(std::move(message));
      self->pump();
    });
  }

  void close(int code, std::string reason) override {
    asio::post(strand, [self = shared_from_this(), code, reason = std::move(reason)]() mutable {
      if (self->close_requested || self->finished) return;
      self->close_requested = true;
      // A close frame carries at most 123 bytes of reason.
      self->close_reason = websocket::close_reason(static_cast<websocket::close_code>(code),
                                                   std::string_view(reason).substr(0, 123));
      if (!self->is_open()) {
        // Still connecting: nothing to say goodbye to.
        self->aborted = true;
        if (self->connection) self->connection->close();
        return;
      }
      self->pump();
    });
  }

  // Ends the connection at once (the client is being destroyed).
  void abort() {
    aborted = true;
    asio::post(strand, [self = shared_from_this()] {
      if (self->connection) self->connection->close();
      beast::error_code ignored;
      self->with_ws([&](auto& ws) { beast::get_lowest_layer(ws).socket().close(ignored); });
    });
  }

  bool is_open() const { return plain_ws || tls_ws; }

  template <class F>
  void with_ws(F&& f) {
    if (tls_ws) f(*tls_ws);
    if (plain_ws) f(*plain_ws);
  }

  // Starts the writer when there is something to write (or a close to send) and no write in flight.
  void pump() {
    if (writing || !is_open() || finished) return;
    if (outbox.empty() && !(close_requested && !close_sent)) return;
    writing = true;
    if (tls_ws) {
      asio::co_spawn(strand, write_loop(shared_from_this(), *tls_ws), asio::detached);
    } else {
      asio::co_spawn(strand, write_loop(shared_from_this(), *plain_ws), asio::detached);
    }
  }

  template <class Ws>
  static asio::awaitable<void> write_loop(std::shared_ptr<Session> s, Ws& ws) {
    while (!s->outbox.empty() && !s->finished) {
      std::string message = std::move(s->outbox.front());
      s->outbox.pop_front();
      ws.text(true);
      auto [ec, n] = co_await ws.async_write(asio::buffer(message), kTuple);
      if (ec) break;  // the read loop sees the same failure and reports it
    }
    if (s->close_requested && !s->close_sent && !s->finished) {
      s->close_sent = true;
      auto [ec] = co_await ws.async_close(s->close_reason, kTuple);
      WebSocketClosed closed{std::nullopt, ws.reason().code, reason_text(ws.reason())};
      if (ec) {
        closed.error =
            make_error(NetErrorKind::broken,
                       "WebSocket " + s->url.where() + " broke while closing: " + ec.message(), ec.message());
      }
      // Beast ends our pending read as soon as the close starts; the call ends when both are over.
      if (s->read_done) {
        s->finish(std::move(closed));
      } else if (!s->finished) {
        s->close_result = std::move(closed);
      }
    }
    s->writing = false;
    if (s->finished) {
      s->drop_streams();
    } else if (!s->outbox.empty()) {
      s->pump();
    }
  }

  // Destroying the streams cancels Beast's own timers (handshake, idle pings), which would otherwise keep
  // the io threads busy until they fire. Only when no write is in flight: the writer holds a reference.
  void drop_streams() {
    plain_ws.reset();
    tls_ws.reset();
  }

  template <class Ws>
  // nullopt: our close() ended the read; the close handshake's outcome ends the call.
  static asio::awaitable<std::optional<WebSocketClosed>> session(std::shared_ptr<Session> s, Ws& ws) {
    const std::string where = s->url.where();
    websocket::stream_base::timeout timeouts;
    timeouts.handshake_timeout =
        std::max(std::chrono::milliseconds(1),
                 std::chrono::duration_cast<std::chrono::milliseconds>(s->connect_deadline - Clock::now()));
    timeouts.idle_timeout = s->options.idle_timeout;
    timeouts.keep_alive_pings = true;
    beast::get_lowest_layer(ws).expires_never();  // the websocket stream keeps its own time now
    ws.set_option(timeouts);
    ws.read_message_max(s->options.max_message_bytes);
    // Copies, not the session: the stream keeps its decorator, and a session inside it would own itself.
    ws.set_option(
        websocket::stream_base::decorator([user_agent = s->client->config.user_agent,
                                           headers = s->options.headers](websocket::request_type& request) {
          request.set(http::field::user_agent, user_agent);
          for (const Header& header : headers) request.set(header.name, header.value);
        }));
    websocket::response_type response;
    auto [handshake_ec] = co_await ws.async_handshake(response, s->url.authority(), s->url.target(), kTuple);
    if (s->aborted)
      co_return WebSocketClosed{make_error(NetErrorKind::cancelled, "cancelled", "cancelled"), 0, {}};
    if (handshake_ec == beast::error::timeout) {
      co_return WebSocketClosed{
          make_error(
              NetErrorKind::connect_timeout,
              "WebSocket upgrade with " + where + " took over " + format_duration(s->options.connect_timeout),
              "upgrade took over " + format_duration(s->options.connect_timeout)),
          0,
          {}};
    }
    if (handshake_ec) {
      std::string detail = response.result_int() != 0 && response.result_int() != 101
                               ? "upgrade refused: HTTP " + std::to_string(response.result_int())
                               : handshake_ec.message();
      co_return WebSocketClosed{make_error(NetErrorKind::bad_response,
                                           "WebSocket upgrade with " + where + " failed: " + detail, detail),
                                0,
                                {}};
    }

    s->handler->on_open();
    s->pump();
    beast::flat_buffer buffer;
    for (;;) {
      auto [ec, n] = co_await ws.async_read(buffer, kTuple);
      if (s->aborted)
        co_return WebSocketClosed{make_error(NetErrorKind::cancelled, "cancelled", "cancelled"), 0, {}};
      if (ec == asio::error::operation_aborted && s->close_sent) co_return std::nullopt;
      if (ec == websocket::error::closed) {
        co_return WebSocketClosed{std::nullopt, ws.reason().code, reason_text(ws.reason())};
      }
      if (ec == beast::error::timeout) {
        std::string detail = "no frame for " + format_duration(s->options.idle_timeout) + " (idle time-out)";
        co_return WebSocketClosed{
            make_error(NetErrorKind::idle_timeout, "WebSocket " + where + ": " + detail, detail), 0, {}};
      }
      if (ec) {
        co_return WebSocketClosed{
            make_error(NetErrorKind::broken, "WebSocket " + where + " broke: " + ec.message(), ec.message()),
            ws.reason().code, reason_text(ws.reason())};
      }
      const auto data = buffer.cdata();
      s->handler->on_message(std::string_view(static_cast<const char*>(data.data()), data.size()),
                             ws.got_binary());
      buffer.consume(buffer.size());
    }
  }

  static asio::awaitable<std::optional<WebSocketClosed>> connect_and_run(std::shared_ptr<Session> s) {
    s->connection = std::make_shared<Connection>(s->strand);
    auto error = co_await detail::open_connection(*s->connection, s->url, s->client->tls,
                                                  s->options.connect_timeout, std::nullopt, s->aborted);
    if (s->aborted)
      co_return WebSocketClosed{make_error(NetErrorKind::cancelled, "cancelled", "cancelled"), 0, {}};
    if (error) co_return WebSocketClosed{std::move(error), 0, {}};
    // The upgraded stream takes over the connection's socket (and TLS state).
    std::shared_ptr<Connection> connection = std::move(s->connection);
    if (connection->tls) {
      s->tls_ws.emplace(std::move(*connection->tls));
      co_return co_await session(s, *s->tls_ws);
    }
    s->plain_ws.emplace(std::move(*connection->plain));
    co_return co_await session(s, *s->plain_ws);
  }

  static asio::awaitable<void> run(std::shared_ptr<Session> s) {
    std::optional<WebSocketClosed> closed;
    try {
      closed = co_await connect_and_run(s);
    } catch (const std::exception& e) {
      closed = WebSocketClosed{
          make_error(NetErrorKind::internal, std::string("internal error: ") + e.what(), e.what()), 0, {}};
    }
    s->read_done = true;
    if (closed) {
      s->finish(std::move(*closed));
    } else if (s->close_result) {
      s->finish(std::move(*s->close_result));
    }
  }

  void finish(WebSocketClosed closed) {
    if (finished) return;
    finished = true;
    outbox.clear();
    beast::error_code ignored;
    with_ws([&](auto& ws) { beast::get_lowest_layer(ws).socket().close(ignored); });
    if (!writing) drop_streams();
    auto h = std::move(handler);
    if (h) h->on_close(closed);
    client->sessions.ended();
  }

  std::shared_ptr<Impl> client;  // first: destroyed last, after the streams that use its TLS context
  Strand strand;
  Url url;
  WebSocketOptions options;
  std::shared_ptr<WebSocketHandler> handler;
  Clock::time_point connect_deadline;
  std::shared_ptr<Connection> connection;  // while connecting
  std::optional<PlainWs> plain_ws;
  std::optional<TlsWs> tls_ws;
  std::deque<std::string> outbox;
  websocket::close_reason close_reason;
  bool writing = false;
  bool close_requested = false;
  bool close_sent = false;
  bool read_done = false;
  std::optional<WebSocketClosed> close_result;  // the close handshake ended before the read loop did
  bool finished = false;
  std::atomic<bool> aborted{false};
};

}  // namespace

WebSocketClient::WebSocketClient(std::shared_ptr<IoThreads> io, WebSocketClientConfig config)
    : io_(std::move(io)), impl_(std::make_shared<Impl>(io_->impl().io, std::move(config))) {}

WebSocketClient::~WebSocketClient() {
  for (auto& weak : impl_->sessions.take_all()) {
    if (auto socket = weak.lock()) static_cast<Session&>(*socket).abort();
  }
  impl_->sessions.wait_all_ended();
}

std::shared_ptr<WebSocket> WebSocketClient::connect(std::string url, WebSocketOptions options,
                                                    std::shared_ptr<WebSocketHandler> handler) {
  auto session = std::make_shared<Session>(impl_, asio::make_strand(impl_->io));
  session->options = std::move(options);
  session->handler = std::move(handler);
  session->connect_deadline = Clock::now() + session->options.connect_timeout;
  std::optional<NetError> early;
  auto parsed = parse_url(url);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    early = make_error(NetErrorKind::bad_url, *error, *error);
  } else {
    session->url = std::get<Url>(std::move(parsed));
    if (session->url.scheme != "ws" && session->url.scheme != "wss") {
      early = make_error(NetErrorKind::bad_url, "WebSocket client needs a ws:// or wss:// URL",
                         "not a ws(s) URL");
    }
  }
  for (const Header& header : session->options.headers) {
    for (char c : header.name + header.value) {
      if (!early && (c == '\r' || c == '\n' || c == '\0')) {
        early = make_error(NetErrorKind::bad_request, "upgrade header has CR, LF or NUL",
                           "header has CR, LF or NUL");
      }
    }
  }
  impl_->sessions.add(session);
  if (early) {
    asio::post(session->strand, [session, error = std::move(*early)] {
      session->finish(WebSocketClosed{error, 0, {}});
    });
  } else {
    asio::co_spawn(session->strand, Session::run(session), asio::detached);
  }
  return session;
}

}  // namespace sigil::net
