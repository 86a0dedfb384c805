// The compiled part of Asio (with its SSL part) and Beast, once for the whole program: every target defines
// BOOST_ASIO_SEPARATE_COMPILATION and BOOST_BEAST_SEPARATE_COMPILATION (CMakeLists.txt), so the translation
// units that use them no longer compile the reactor, the HTTP parser, the WebSocket handshake and the zlib
// (permessage-deflate) streams each on their own. Build time only: the code is the same.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
