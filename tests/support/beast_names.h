// The short Boost names the socket tests and their fake servers write, in one place:
// `using namespace sigil::testing::beast_names;` gives asio, beast, http, websocket, ssl, json and tcp.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>

namespace sigil::testing::beast_names {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace ssl = asio::ssl;
namespace json = boost::json;
using tcp = asio::ip::tcp;

}  // namespace sigil::testing::beast_names
