// A blocking HTTP/1.1 client over a real loopback socket, for the server tests: requests go out exactly as
// written (so a test can send any Host, Origin or Content-Type, or a malformed head), answers are read until
// the server closes.
#pragma once

#include <map>
#include <string>

namespace sigil::test_http {

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
};

// Connects to `address`:port and sends `request`; -1 (and a test failure) when it cannot. Reads time out
// after `timeout_s`.
int connect_and_send(unsigned short port, const std::string& request, int timeout_s = 20,
                     const char* address = "127.0.0.1");

// Reads until `needle` has arrived (true) or the connection ends (false).
bool read_until(int fd, std::string& raw, const std::string& needle);

// The status, headers and body of a raw response (a test failure when its head is incomplete).
HttpReply parse_reply(const std::string& raw);

// Sends the request and reads until the server closes (requests say Connection: close).
HttpReply http_exchange(unsigned short port, const std::string& request, int timeout_s = 20);

}  // namespace sigil::test_http
