// One outgoing TCP (+TLS) connection and the code that opens it, shared by the HTTP and WebSocket
// clients. net/ internal: includes Beast's core and Asio's SSL, not Beast's HTTP or WebSocket parts.
//
// A Connection belongs to one strand: every operation on it, and close(), runs there. That is also why a
// pooled connection keeps its strand: the request that reuses it runs on that strand.
#pragma once

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "sigil/net/error.h"
#include "sigil/net/url.h"
#include "sigil/text/diagnostic_text.h"

namespace sigil::net {

// The names every net/ source file spells Boost's parts with.
namespace asio = boost::asio;
namespace beast = boost::beast;

}  // namespace sigil::net

namespace sigil::net::detail {

// `co_await op(..., kTuple)`: the error code comes back in the tuple, never as an exception.
inline constexpr auto kTuple = boost::asio::as_tuple(boost::asio::use_awaitable);

using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
using Clock = std::chrono::steady_clock;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

// The client side TLS settings: TLS 1.2+, peer verification on, trusted CAs from ca_file or the system.
class TlsContext {
 public:
  // Throws std::invalid_argument when ca_file cannot be loaded.
  explicit TlsContext(const std::string& ca_file);
  // Loads the system trust store at the first call when no ca_file was given. Thread-safe.
  boost::asio::ssl::context& get();

 private:
  boost::asio::ssl::context context_;
  bool custom_ca_ = false;
  std::once_flag system_store_;
};

struct Connection {
  explicit Connection(Strand s) : strand(std::move(s)), resolver(strand), resolve_timer(strand) {}

  // Closes the socket and cancels the resolver: whatever is waiting on them completes with an error.
  void close() noexcept;
  boost::beast::tcp_stream& lowest();

  Strand strand;
  boost::asio::ip::tcp::resolver resolver;
  boost::asio::steady_timer resolve_timer;  // the resolver has no time-out of its own
  std::optional<boost::beast::tcp_stream> plain;
  std::optional<TlsStream> tls;
  boost::beast::flat_buffer buffer;  // bytes read past the current response stay here for the next
  std::string pool_key;
  Clock::time_point idle_since{};
  bool resolve_timed_out = false;
};

// A time limit for one phase: `limit`, unless the caller's deadline comes first.
struct PhaseLimit {
  Clock::time_point at;
  bool by_deadline = false;
};
PhaseLimit phase_limit(std::chrono::milliseconds limit, std::optional<Clock::time_point> deadline);

using text::format_duration;
using text::one_line;

// Every error the clients report: its message and detail each on one line (they go into logs and replies).
inline NetError make_error(NetErrorKind kind, std::string message, std::string detail) {
  return NetError{kind, one_line(std::move(message)), one_line(std::move(detail))};
}

// Resolves url's host (or, when `connect_address` is an IP address, connects to it and resolves nothing),
// connects to each address in turn (each socket opened close-on-exec before it connects), then for
// https/wss does the TLS handshake with SNI and certificate + host-name checks against url's host.
// On failure returns the error; `cancelled` is checked after every wait.
boost::asio::awaitable<std::optional<NetError>> open_connection(Connection& connection, const Url& url,
                                                                TlsContext& tls,
                                                                std::chrono::milliseconds connect_timeout,
                                                                std::optional<Clock::time_point> deadline,
                                                                const std::atomic<bool>& cancelled,
                                                                const std::string& connect_address = {});

// Sets FD_CLOEXEC on a descriptor; false if fcntl failed.
bool set_close_on_exec(int fd) noexcept;

}  // namespace sigil::net::detail
