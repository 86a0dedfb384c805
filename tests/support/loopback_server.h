// What the socket tests' fake servers start with, in one place: an acceptor listening on 127.0.0.1 at a port
// the system picks, and for https/wss a server context holding the test's self-signed identity.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>

#include "support/fake_openai_server.h"

namespace sigil::testing {

// `acceptor` opened, bound to 127.0.0.1 at a free port and listening; that port.
inline unsigned short listen_on_loopback(boost::asio::ip::tcp::acceptor& acceptor) {
  const boost::asio::ip::tcp::endpoint endpoint(boost::asio::ip::make_address("127.0.0.1"), 0);
  acceptor.open(endpoint.protocol());
  acceptor.set_option(boost::asio::socket_base::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen();
  return acceptor.local_endpoint().port();
}

// `context` serving `identity`'s certificate and private key.
inline void serve_identity(boost::asio::ssl::context& context, const TlsIdentity& identity) {
  context.use_certificate_chain(boost::asio::buffer(identity.cert_pem));
  context.use_private_key(boost::asio::buffer(identity.key_pem), boost::asio::ssl::context::pem);
}

}  // namespace sigil::testing
