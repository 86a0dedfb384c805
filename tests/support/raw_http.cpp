#include "support/raw_http.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>

namespace sigil::test_http {

int connect_and_send(unsigned short port, const std::string& request, int timeout_s, const char* address) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    ADD_FAILURE() << "socket failed";
    return -1;
  }
  timeval tv{timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, address, &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ADD_FAILURE() << "connect failed";
    ::close(fd);
    return -1;
  }
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  return fd;
}

bool read_until(int fd, std::string& raw, const std::string& needle) {
  char buf[4096];
  while (raw.find(needle) == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    raw.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

HttpReply parse_reply(const std::string& raw) {
  HttpReply reply;
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    ADD_FAILURE() << "no complete response head in: " << raw;
    return reply;
  }
  const std::string head = raw.substr(0, head_end);
  reply.body = raw.substr(head_end + 4);
  std::size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);
  if (status_line.size() >= 12) reply.status = std::stoi(status_line.substr(9, 3));
  while (line_end != std::string::npos) {
    const std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line =
        head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    reply.headers[name] = value;
  }
  return reply;
}

HttpReply http_exchange(unsigned short port, const std::string& request, int timeout_s) {
  const int fd = connect_and_send(port, request, timeout_s);
  if (fd < 0) return {};
  std::string raw;
  read_until(fd, raw, std::string("\x01never\x02"));
  ::close(fd);
  return parse_reply(raw);
}

}  // namespace sigil::test_http
