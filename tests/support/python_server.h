// A small Python test server from tests/support/ run as a child process on a free loopback port:
// `python3 tests/support/<script> PORT LOG [args…]`, where the script appends each request it received to
// LOG as one JSON object a line. The tests that drive sigil's HTTP clients against such servers share it.
#pragma once

#include <sys/types.h>

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::testing {

// A loopback port that was free a moment ago (bound, read, released).
int free_loopback_port();
// Whether something accepts connections on the loopback port.
bool loopback_accepts(int port);

class PythonServer {
 public:
  // Starts the script and waits (up to 10 s) until it accepts connections; killed, with its log removed, at
  // the end. A script that cannot start leaves a server nothing connects to, which the test then notices.
  explicit PythonServer(std::string_view script, std::vector<std::string> args = {});
  ~PythonServer();
  PythonServer(const PythonServer&) = delete;
  PythonServer& operator=(const PythonServer&) = delete;

  int port() const { return port_; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The requests logged so far, in order; with a path, only those to it.
  std::vector<boost::json::object> requests(std::string_view path = {}) const;

 private:
  int port_;
  std::string log_;
  pid_t pid_ = -1;
};

}  // namespace sigil::testing
