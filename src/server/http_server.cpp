// The listener: binding, the io threads, accepting (or refusing) connections, and stop(). One of the
// server's three Beast translation units (with http_session.cpp and websocket_session.cpp); what the
// sessions share lives in server_state.h, the answers in the pure handlers those files name.
#include "sigil/server/http_server.h"

#include <fcntl.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "server/connection_slot.h"
#include "server/frame_tick.h"
#include "server/http_session.h"
#include "server/server_state.h"
#include "server/turn_broadcaster.h"

namespace sigil::server {

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

// Asio opens and accepts sockets without SOCK_CLOEXEC: a child started meanwhile (espeak-ng, a named
// command) would inherit them. The launcher closes what it does not hand over, and this closes the rest.
void set_cloexec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
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
  Impl(agent::Agent& agent, store::Store& store, HttpServerOptions options)
      : state_(agent, store, std::move(options)) {}

  ~Impl() { stop(); }

  unsigned short start();
  void stop();

  ServerState& state() { return state_; }

 private:
  void do_accept();
  void refuse(tcp::socket socket);

  // Declared first, destroyed last: sessions still queued in the io_context when it is destroyed count
  // themselves out through it.
  ServerState state_;
  asio::io_context ioc_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::optional<tcp::acceptor> acceptor_;
  std::vector<std::thread> threads_;
  bool started_ = false;
};

// Beyond max_connections: a fixed 503, then the socket closes. Nothing is read.
void HttpServer::Impl::refuse(tcp::socket socket) {
  ++state_.metrics.connections_refused;
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
      "Connection: close\r\nContent-Length: 43\r\n\r\n{\"error\":\"too many connections; try later\"}";
  auto s = std::make_shared<tcp::socket>(std::move(socket));
  asio::async_write(*s, asio::buffer(kBusy.data(), kBusy.size()),
                    [s](boost::system::error_code, std::size_t) {
                      boost::system::error_code ec;
                      s->shutdown(tcp::socket::shutdown_send, ec);
                      s->close(ec);
                    });
}

void HttpServer::Impl::do_accept() {
  acceptor_->async_accept(asio::make_strand(ioc_), [this](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_->is_open()) return;
    if (!ec) {
      set_cloexec(socket.native_handle());
      // A token is a small frame sent alone: with Nagle's algorithm it would wait for the client's
      // (delayed) ACK of the previous one, 20-40 ms on loopback. Frames that wait behind a write are
      // merged by the connection's FrameQueue instead. Best effort: a socket that refuses still works.
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      const std::size_t limit = state_.options.max_connections;
      if (limit != 0 && state_.metrics.connections_open.load() >= limit) {
        refuse(std::move(socket));
      } else {
        ++state_.metrics.connections_open;
        run_http_session(state_, std::move(socket), ConnectionSlot(&state_.metrics.connections_open));
      }
    }
    do_accept();
  });
}

unsigned short HttpServer::Impl::start() {
  if (started_) return acceptor_->local_endpoint().port();
  const HttpServerOptions& options = state_.options;
  const std::string& host = options.host;
  if (!is_loopback(host) && options.api_token.empty()) {
    throw HttpServerError("http server: refusing to listen on non-loopback host \"" + host +
                          "\" without an api_token; set an api_token or bind 127.0.0.1");
  }
  boost::system::error_code ec;
  const auto address =
      host == "localhost" ? asio::ip::make_address("127.0.0.1") : asio::ip::make_address(host, ec);
  if (ec) throw HttpServerError("http server: host \"" + host + "\" is not an IP address");
  const tcp::endpoint endpoint{address, options.port};
  // On its own strand: with several io threads, stop()'s close must not race the accept handler.
  tcp::acceptor acceptor(asio::make_strand(ioc_));
  auto fail = [&](std::string_view what) {
    throw HttpServerError("http server: cannot " + std::string(what) + " " + host + ":" +
                          std::to_string(options.port) + ": " + ec.message());
  };
  acceptor.open(endpoint.protocol(), ec);
  if (ec) fail("open a socket for");
  set_cloexec(acceptor.native_handle());
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) fail("set reuse_address on");
  acceptor.bind(endpoint, ec);
  if (ec) fail("bind");
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) fail("listen on");
  acceptor_.emplace(std::move(acceptor));
  const unsigned short port = acceptor_->local_endpoint().port();
  state_.policy.emplace(
      OriginPolicyConfig{host, port, options.public_url, options.allowed_origins, options.allowed_hosts});
  started_ = true;
  work_.emplace(ioc_.get_executor());
  if (options.frame_tick.count() > 0)
    state_.frame_tick = std::make_shared<FrameTick>(ioc_.get_executor(), options.frame_tick);
  do_accept();
  const unsigned threads = std::max(1u, options.threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { ioc_.run(); });
  return port;
}

void HttpServer::Impl::stop() {
  if (!state_.turns.stop_opening()) return;
  std::vector<std::string> turns = state_.turns.open_ids();
  if (!started_) {
    state_.hub->close();
    return;
  }
  // Closed (and waited for) before the sessions are collected, so none is accepted after that.
  std::promise<void> closed;
  asio::post(acceptor_->get_executor(), [this, &closed] {
    boost::system::error_code ec;
    acceptor_->close(ec);
    closed.set_value();
  });
  closed.get_future().wait();
  // The turns end (cancelled) before the io threads stop, so their last events still find a strand.
  // Cancel again while waiting: a turn queued behind another, or one just being started, may not have
  // been cancellable the first time.
  for (;;) {
    for (const auto& id : turns) state_.agent.cancel(id);
    if (state_.turns.wait_closed(100ms)) break;
    turns = state_.turns.open_ids();
  }
  // From here on no frame is posted to a connection (turns the server did not start, such as scheduled
  // ones, may still be running in the agent).
  state_.hub->close();
  if (state_.frame_tick) state_.frame_tick->stop();
  for (const auto& s : state_.sessions.take_live()) s->close_from_server();
  work_.reset();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

HttpServer::HttpServer(agent::Agent& agent, store::Store& store, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(agent, store, std::move(options))) {}

HttpServer::~HttpServer() = default;

unsigned short HttpServer::start() { return impl_->start(); }

void HttpServer::stop() { impl_->stop(); }

std::shared_ptr<agent::TurnObserver> HttpServer::conversation_observer(std::string user,
                                                                       std::string conversation) {
  return std::make_shared<TurnBroadcaster>(impl_->state().broadcast_target(), std::move(user),
                                           std::move(conversation), std::string());
}

}  // namespace sigil::server
