// The test process's own sockets connected to one port: what a client under test holds open, found by
// listing /proc/self/fd, so a test can check a socket's flags (close-on-exec) or that it is gone.
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <vector>

namespace sigil::testing {

// Descriptors whose peer is `port` on IPv4 or IPv6 (a server in this process has its own sockets on that
// port as their local side, not their peer, so they are not listed). Empty if /proc cannot be read.
inline std::vector<int> client_sockets_to(unsigned short port) {
  std::vector<int> out;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return out;
  while (dirent* entry = ::readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (fd <= 2 || fd == ::dirfd(dir)) continue;
    sockaddr_storage peer{};
    socklen_t size = sizeof(peer);
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) continue;
    unsigned short peer_port = 0;
    if (peer.ss_family == AF_INET) peer_port = ntohs(reinterpret_cast<sockaddr_in*>(&peer)->sin_port);
    if (peer.ss_family == AF_INET6) peer_port = ntohs(reinterpret_cast<sockaddr_in6*>(&peer)->sin6_port);
    if (peer_port == port) out.push_back(fd);
  }
  ::closedir(dir);
  return out;
}

}  // namespace sigil::testing
