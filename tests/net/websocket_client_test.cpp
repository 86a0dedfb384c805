// The WebSocket client against a local Beast WebSocket server (plain and TLS) defined here.
#include "sigil/net/websocket_client.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "support/beast_names.h"
#include "support/client_sockets.h"
#include "support/fake_openai_server.h"
#include "support/locked_copy.h"
#include "support/loopback_server.h"
#include "support/trusted_identity.h"

namespace sigil::net {
namespace {

using namespace sigil::testing::beast_names;
using namespace std::chrono_literals;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// Echoes "echo:<message>"; "ping-me" makes it ping us, "close-me" closes with 4000 "bye", "go-silent"
// makes it stop reading (so it answers no pings either). Records the upgrade request and pongs.
class WsServer {
 public:
  explicit WsServer(std::optional<sigil::testing::TlsIdentity> identity = std::nullopt)
      : ssl_context_(ssl::context::tls_server) {
    if (identity) {
      tls_ = true;
      sigil::testing::serve_identity(ssl_context_, *identity);
    }
    port_ = sigil::testing::listen_on_loopback(acceptor_);
    asio::co_spawn(io_, accept_loop(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~WsServer() {
    io_.stop();
    thread_.join();
  }

  std::string url(const std::string& path = "/gateway?v=10") const {
    return (tls_ ? "wss://localhost:" : "ws://127.0.0.1:") + std::to_string(port_) + path;
  }
  unsigned short port() const { return port_; }
  bool refuse_upgrade = false;

  std::string header(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto it = upgrade_.find(name);
    return it == upgrade_.end() ? "" : std::string(it->value());
  }
  std::string target() {
    std::lock_guard lock(mutex_);
    return std::string(upgrade_.target());
  }
  int pongs() const { return pongs_.load(); }
  int pings() const { return pings_.load(); }
  int messages_read() { return test::locked_copy(mutex_, messages_read_); }
  std::string last_message() { return test::locked_copy(mutex_, last_message_); }

 private:
  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(kTuple);
      if (ec) co_return;
      if (tls_) {
        beast::ssl_stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(socket)), ssl_context_);
        asio::co_spawn(io_, serve_tls(std::move(stream)), asio::detached);
      } else {
        asio::co_spawn(io_, serve(websocket::stream<beast::tcp_stream>(std::move(socket))), asio::detached);
      }
    }
  }

  asio::awaitable<void> serve_tls(beast::ssl_stream<beast::tcp_stream> stream) {
    auto [ec] = co_await stream.async_handshake(ssl::stream_base::server, kTuple);
    if (ec) co_return;
    co_await serve(websocket::stream<beast::ssl_stream<beast::tcp_stream>>(std::move(stream)));
  }

  template <class Ws>
  asio::awaitable<void> serve(Ws ws) {
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    auto [read_ec, read_n] = co_await http::async_read(ws.next_layer(), buffer, request, kTuple);
    if (read_ec) co_return;
    {
      std::lock_guard lock(mutex_);
      upgrade_ = request;
    }
    if (refuse_upgrade) {
      http::response<http::string_body> response{http::status::forbidden, 11};
      response.body() = "no";
      response.prepare_payload();
      co_await http::async_write(ws.next_layer(), response, kTuple);
      co_return;
    }
    ws.control_callback([this](websocket::frame_type kind, beast::string_view) {
      if (kind == websocket::frame_type::pong) ++pongs_;
      if (kind == websocket::frame_type::ping) ++pings_;
    });
    auto [accept_ec] = co_await ws.async_accept(request, kTuple);
    if (accept_ec) co_return;
    for (;;) {
      beast::flat_buffer message;
      auto [ec, n] = co_await ws.async_read(message, kTuple);
      if (ec) co_return;
      std::string text = beast::buffers_to_string(message.data());
      {
        std::lock_guard lock(mutex_);
        ++messages_read_;
        last_message_ = text;
      }
      if (text == "ping-me") {
        co_await ws.async_ping("p", kTuple);
      } else if (text == "close-me") {
        co_await ws.async_close(websocket::close_reason(static_cast<websocket::close_code>(4000), "bye"),
                                kTuple);
      } else if (text == "go-silent") {
        asio::steady_timer timer(co_await asio::this_coro::executor);
        timer.expires_after(10s);
        co_await timer.async_wait(kTuple);
        co_return;
      } else {
        ws.text(true);
        co_await ws.async_write(asio::buffer("echo:" + text), kTuple);
      }
    }
  }

  ssl::context ssl_context_;
  bool tls_ = false;
  asio::io_context io_;
  tcp::acceptor acceptor_{io_};
  unsigned short port_ = 0;
  std::mutex mutex_;
  http::request<http::string_body> upgrade_;
  std::atomic<int> pongs_{0};
  std::atomic<int> pings_{0};
  int messages_read_ = 0;
  std::string last_message_;
  std::thread thread_;
};

class RecordingWsHandler : public WebSocketHandler {
 public:
  void on_open() override {
    std::lock_guard lock(mutex_);
    if (opened_ || closed_) problems_.push_back("on_open out of order");
    opened_ = true;
    cv_.notify_all();
  }
  void on_message(std::string_view data, bool binary) override {
    std::lock_guard lock(mutex_);
    if (!opened_ || closed_) problems_.push_back("on_message out of order");
    messages_.emplace_back(data);
    if (binary) problems_.push_back("unexpected binary message");
    cv_.notify_all();
  }
  void on_close(const WebSocketClosed& closed) override {
    std::lock_guard lock(mutex_);
    if (closed_) problems_.push_back("on_close twice");
    closed_ = true;
    result_ = closed;
    cv_.notify_all();
  }

  bool wait_messages(std::size_t n, std::chrono::milliseconds limit = 5s) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [&] { return messages_.size() >= n; });
  }
  bool wait_closed(std::chrono::milliseconds limit = 5s) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [&] { return closed_; });
  }
  bool wait_open(std::chrono::milliseconds limit = 5s) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [&] { return opened_ || closed_; }) && opened_;
  }
  std::vector<std::string> messages() { return test::locked_copy(mutex_, messages_); }
  WebSocketClosed result() { return test::locked_copy(mutex_, result_); }
  bool opened() { return test::locked_copy(mutex_, opened_); }
  std::vector<std::string> problems() { return test::locked_copy(mutex_, problems_); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool opened_ = false;
  bool closed_ = false;
  std::vector<std::string> messages_;
  WebSocketClosed result_;
  std::vector<std::string> problems_;
};

void exchange_and_close(WsServer& server, WebSocketClient& client) {
  auto handler = std::make_shared<RecordingWsHandler>();
  WebSocketOptions options;
  options.headers.push_back({"Authorization", "Bot token-123"});
  auto socket = client.connect(server.url(), options, handler);
  socket->send_text("queued before open");  // queued, sent once the upgrade is done
  ASSERT_TRUE(handler->wait_open());
  socket->send_text("one");
  socket->send_text("two");
  ASSERT_TRUE(handler->wait_messages(3));
  EXPECT_EQ(handler->messages(),
            (std::vector<std::string>{"echo:queued before open", "echo:one", "echo:two"}));
  EXPECT_EQ(server.header("Authorization"), "Bot token-123");
  EXPECT_EQ(server.header("User-Agent"), "sigil/0.1");
  EXPECT_EQ(server.target(), "/gateway?v=10");
  socket->send_text("last");
  socket->close(1000, "done");
  socket->send_text("after close");  // dropped: the close frame was already asked for
  ASSERT_TRUE(handler->wait_closed());
  EXPECT_FALSE(handler->result().error) << handler->result().error->message;
  EXPECT_EQ(handler->result().code, 1000) << handler->result().reason;  // the server echoes our close
  // "last" left before the close frame: the server read it (its echo, arriving after our close frame,
  // is dropped by the close handshake); "after close" never left.
  auto until = std::chrono::steady_clock::now() + 2s;
  while (server.messages_read() < 4 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(server.messages_read(), 4);
  EXPECT_EQ(server.last_message(), "last");
  EXPECT_TRUE(handler->problems().empty());
}

TEST(WebSocketClient, ExchangesMessagesAndClosesCleanly) {
  WsServer server;
  WebSocketClient client(std::make_shared<IoThreads>());
  exchange_and_close(server, client);
}

// Connects to `url` a connection that must never open and waits for its end: the error it ended with (none
// when it ended without one, or, after a failed expectation, did not end).
std::optional<NetError> refused_connect(WebSocketClient& client, const std::string& url) {
  auto handler = std::make_shared<RecordingWsHandler>();
  client.connect(url, {}, handler);
  EXPECT_TRUE(handler->wait_closed());
  EXPECT_FALSE(handler->opened());
  return handler->result().error;
}

TEST(WebSocketClient, SecureWebSocketVerifiesTheCertificate) {
  sigil::testing::TrustedIdentity identity;
  WsServer server(identity.identity);
  WebSocketClientConfig trusted;
  trusted.ca_file = identity.ca_file;
  WebSocketClient client(std::make_shared<IoThreads>(), trusted);
  exchange_and_close(server, client);

  WebSocketClient system_store(std::make_shared<IoThreads>());
  const auto error = refused_connect(system_store, server.url());
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, NetErrorKind::tls_verify_failed);
}

TEST(WebSocketClient, AnswersPingsAndSeesThePeersClose) {
  WsServer server;
  WebSocketClient client(std::make_shared<IoThreads>());
  auto handler = std::make_shared<RecordingWsHandler>();
  auto socket = client.connect(server.url(), {}, handler);
  socket->send_text("ping-me");
  socket->send_text("hello");
  ASSERT_TRUE(handler->wait_messages(1));  // the echo comes after the ping, so the pong had its turn
  auto until = std::chrono::steady_clock::now() + 2s;
  while (server.pongs() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(server.pongs(), 1);
  socket->send_text("close-me");
  ASSERT_TRUE(handler->wait_closed());
  EXPECT_FALSE(handler->result().error);
  EXPECT_EQ(handler->result().code, 4000);
  EXPECT_EQ(handler->result().reason, "bye");
}

TEST(WebSocketClient, PingsWhenIdleAndGivesUpOnASilentPeer) {
  WsServer server;
  WebSocketClient client(std::make_shared<IoThreads>());
  auto handler = std::make_shared<RecordingWsHandler>();
  WebSocketOptions options;
  options.idle_timeout = 300ms;
  auto socket = client.connect(server.url(), options, handler);
  ASSERT_TRUE(handler->wait_open());
  // While the server reads, our keep-alive pings get pongs and the connection stays up past the limit.
  std::this_thread::sleep_for(700ms);
  EXPECT_GE(server.pings(), 2);  // one per 150 ms of silence
  EXPECT_FALSE(handler->wait_closed(0ms));
  socket->send_text("still here");
  ASSERT_TRUE(handler->wait_messages(1));
  socket->send_text("go-silent");
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(handler->wait_closed(3s));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  ASSERT_TRUE(handler->result().error);
  EXPECT_EQ(handler->result().error->kind, NetErrorKind::idle_timeout);
}

TEST(WebSocketClient, RefusedUpgradeAndBadUrlsEndWithOnClose) {
  WsServer server;
  server.refuse_upgrade = true;
  WebSocketClient client(std::make_shared<IoThreads>());
  const auto refused = refused_connect(client, server.url());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->kind, NetErrorKind::bad_response);
  EXPECT_EQ(refused->detail, "upgrade refused: HTTP 403");

  const auto bad = refused_connect(client, "https://example.com/");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->kind, NetErrorKind::bad_url);
}

TEST(WebSocketClient, SocketIsCloseOnExecAndDestroyingTheClientEndsIt) {
  WsServer server;
  auto client = std::make_unique<WebSocketClient>(std::make_shared<IoThreads>());
  auto handler = std::make_shared<RecordingWsHandler>();
  client->connect(server.url(), {}, handler);
  ASSERT_TRUE(handler->wait_open());
  const std::vector<int> fds = sigil::testing::client_sockets_to(server.port());
  for (int fd : fds) EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0) << "fd " << fd << " is inheritable";
  const std::size_t found = fds.size();
  EXPECT_EQ(found, 1u);
  client.reset();
  EXPECT_TRUE(handler->wait_closed(0ms));
  ASSERT_TRUE(handler->result().error);
  EXPECT_EQ(handler->result().error->kind, NetErrorKind::cancelled);
}

}  // namespace
}  // namespace sigil::net
