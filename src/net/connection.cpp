// Opening outgoing connections: resolve, connect close-on-exec, TLS with verification.
#include "net/connection.h"

#include <fcntl.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/ssl.hpp>
#include <stdexcept>
#include <variant>
#include <vector>

namespace sigil::net::detail {

namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using std::chrono::milliseconds;

TlsContext::TlsContext(const std::string& ca_file) : context_(ssl::context::tls_client) {
  context_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  context_.set_verify_mode(ssl::verify_peer);
  if (!ca_file.empty()) {
    beast::error_code ec;
    context_.load_verify_file(ca_file, ec);
    if (ec) throw std::invalid_argument("cannot load ca_file " + ca_file + ": " + ec.message());
    custom_ca_ = true;
  }
}

ssl::context& TlsContext::get() {
  std::call_once(system_store_, [this] {
    if (custom_ca_) return;
    beast::error_code ec;
    context_.set_default_verify_paths(ec);
    if (ec) throw std::runtime_error("cannot load the system trust store: " + ec.message());
  });
  return context_;
}

void Connection::close() noexcept {
  beast::error_code ignored;
  resolver.cancel();
  resolve_timer.cancel();
  if (plain) plain->socket().close(ignored);
  if (tls) beast::get_lowest_layer(*tls).socket().close(ignored);
}

beast::tcp_stream& Connection::lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }

PhaseLimit phase_limit(milliseconds limit, std::optional<Clock::time_point> deadline) {
  Clock::time_point at = Clock::now() + limit;
  if (deadline && *deadline < at) return PhaseLimit{*deadline, true};
  return PhaseLimit{at, false};
}

bool set_close_on_exec(int fd) noexcept {
  int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}

namespace {

// The addresses of url's host. A time-out comes back as connect_timeout (the caller words it).
asio::awaitable<std::variant<std::vector<tcp::endpoint>, NetError>> resolve(
    Connection& c, const Url& url, const PhaseLimit& limit, const std::atomic<bool>& cancelled) {
  c.resolve_timed_out = false;
  c.resolve_timer.expires_at(limit.at);
  c.resolve_timer.async_wait([&c](beast::error_code ec) {
    if (ec) return;
    c.resolve_timed_out = true;
    c.resolver.cancel();
  });
  auto [resolve_ec, results] = co_await c.resolver.async_resolve(url.host, url.port, kTuple);
  c.resolve_timer.cancel();
  if (cancelled) co_return NetError{NetErrorKind::cancelled, "cancelled", "cancelled"};
  if (c.resolve_timed_out) co_return NetError{NetErrorKind::connect_timeout, "", ""};
  if (resolve_ec) {
    co_return make_error(NetErrorKind::resolve_failed,
                         "cannot resolve " + url.host + ": " + resolve_ec.message(), resolve_ec.message());
  }
  std::vector<tcp::endpoint> endpoints;
  for (const auto& entry : results) endpoints.push_back(entry.endpoint());
  co_return endpoints;
}

}  // namespace

asio::awaitable<std::optional<NetError>> open_connection(Connection& c, const Url& url, TlsContext& tls,
                                                         milliseconds connect_timeout,
                                                         std::optional<Clock::time_point> deadline,
                                                         const std::atomic<bool>& cancelled,
                                                         const std::string& connect_address) {
  const std::string where = url.where();
  const PhaseLimit limit = phase_limit(connect_timeout, deadline);
  const auto error = [](NetErrorKind kind, std::string message, std::string detail) {
    return std::optional<NetError>(make_error(kind, std::move(message), std::move(detail)));
  };
  const auto timed_out = [&] {
    if (limit.by_deadline) {
      return error(NetErrorKind::deadline, "could not connect to " + where + " before the deadline",
                   "deadline passed while connecting");
    }
    std::string detail = "no connection within " + format_duration(connect_timeout) + " (connect time-out)";
    return error(NetErrorKind::connect_timeout,
                 "could not connect to " + where + " within " + format_duration(connect_timeout) +
                     " (connect time-out)",
                 detail);
  };
  const auto was_cancelled = [&] { return error(NetErrorKind::cancelled, "cancelled", "cancelled"); };

  std::vector<tcp::endpoint> endpoints;
  if (!connect_address.empty()) {
    // The caller checked this address (the SSRF guard): asking the DNS again could get another answer.
    beast::error_code parse_ec;
    const asio::ip::address address = asio::ip::make_address(connect_address, parse_ec);
    const auto port = static_cast<std::uint16_t>(std::stoul(url.port));  // parse_url checked 1..65535
    if (parse_ec) {
      co_return error(NetErrorKind::bad_url,
                      "connect address \"" + connect_address + "\" is not an IP address",
                      "connect address is not an IP address");
    }
    endpoints.emplace_back(address, port);
  } else {
    auto resolved = co_await resolve(c, url, limit, cancelled);
    if (auto* failed = std::get_if<NetError>(&resolved)) {
      if (failed->kind == NetErrorKind::connect_timeout) co_return timed_out();
      co_return std::move(*failed);
    }
    endpoints = std::get<std::vector<tcp::endpoint>>(std::move(resolved));
  }

  if (url.secure()) {
    c.tls.emplace(c.strand, tls.get());
  } else {
    c.plain.emplace(c.strand);
  }
  beast::tcp_stream& stream = c.lowest();
  beast::error_code connect_ec = asio::error::host_not_found;
  for (const tcp::endpoint& endpoint : endpoints) {
    beast::error_code ignored;
    stream.socket().close(ignored);
    // Asio opens sockets without SOCK_CLOEXEC; opening it here lets us mark it before anything can fork
    // off a child that would inherit a connection to the model or a chat platform.
    stream.socket().open(endpoint.protocol(), connect_ec);
    if (connect_ec) continue;
    if (!set_close_on_exec(stream.socket().native_handle())) {
      stream.socket().close(ignored);
      connect_ec = beast::error_code(errno, boost::system::system_category());
      continue;
    }
    stream.expires_at(limit.at);
    auto [ec] = co_await stream.async_connect(endpoint, kTuple);
    if (cancelled) co_return was_cancelled();
    if (ec == beast::error::timeout) co_return timed_out();
    connect_ec = ec;
    if (!ec) break;
  }
  if (connect_ec) {
    co_return error(NetErrorKind::connect_failed, "cannot connect to " + where + ": " + connect_ec.message(),
                    connect_ec.message());
  }
  beast::error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  if (!url.secure()) co_return std::nullopt;

  SSL* native = c.tls->native_handle();
  X509_VERIFY_PARAM* param = SSL_get0_param(native);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  if (url.host_is_ip) {
    X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str());
  } else {
    // SNI: without it, servers behind shared front ends present the wrong certificate.
    SSL_set_tlsext_host_name(native, url.host.c_str());
    X509_VERIFY_PARAM_set1_host(param, url.host.c_str(), 0);
  }
  stream.expires_at(limit.at);
  auto [handshake_ec] = co_await c.tls->async_handshake(ssl::stream_base::client, kTuple);
  if (cancelled) co_return was_cancelled();
  if (handshake_ec == beast::error::timeout) co_return timed_out();
  if (handshake_ec) {
    long verify = SSL_get_verify_result(native);
    if (verify != X509_V_OK) {
      std::string detail =
          std::string("certificate verify failed (") + X509_verify_cert_error_string(verify) + ")";
      co_return error(NetErrorKind::tls_verify_failed, "TLS handshake with " + where + " failed: " + detail,
                      detail);
    }
    co_return error(NetErrorKind::tls_failed,
                    "TLS handshake with " + where + " failed: " + handshake_ec.message(),
                    handshake_ec.message());
  }
  stream.expires_never();
  co_return std::nullopt;
}

}  // namespace sigil::net::detail
