// What sigil_load's two processes share (ws_load.cpp: the clients and main; load_server.cpp: the gateway):
// the options, the clock, and the line pipe between the processes.
#pragma once

#include <errno.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace sigil_load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct Options {
  int conversations = 1000;
  double seconds = 60;
  double tokens_per_second = 50;
  int reply_tokens = 40;
  int directive_every = 4;  // every Nth recorded reply has a react and a remember (0: none)
  double pause_ms = 0;      // between a turn's end and the next message of that conversation
  double stagger_s = -1;    // spread of the first messages (<0: one reply's duration)
  int client_threads = 1;
  unsigned server_threads = 1;
  int frame_tick_us = 0;        // HttpServerOptions::frame_tick (0: a wake-up per connection's first frame)
  int model_threads = 2;        // replay clients (one timer thread each) the calls are spread over
  unsigned finish_threads = 2;  // AgentConfig::finish_threads (turn starts and ends, history writes)
  double jitter = 0;
  double drain_s = 60;  // how long in-flight turns may take to end after the load phase
  int max_connecting = 64;
  std::string store_dir;  // empty: a temp folder under $TMPDIR (or /tmp)
  bool json_only = false;
};

inline std::int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// The 1-minute load average (/proc/loadavg), or -1.
inline double load_average() {
  double one = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &one) != 1) one = -1;
    std::fclose(f);
  }
  return one;
}

inline double cpu_seconds(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// A process's CPU split into user space and kernel, and its threads' context switches: counts that do not
// depend on how busy the machine is as much as the total does (a switch is a thread that slept or was
// put off the core; the kernel's share holds the system calls and the loopback path they run).
struct Usage {
  double user_s = 0;
  double system_s = 0;
  double voluntary_switches = 0;
  double involuntary_switches = 0;
};

inline Usage usage(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return Usage{static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6,
               static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6,
               static_cast<double>(ru.ru_nvcsw), static_cast<double>(ru.ru_nivcsw)};
}

// ------------------------------------------------------------------------------------------------ pipes
// Line-based messages between the two processes.
class LinePipe {
 public:
  LinePipe(int read_fd, int write_fd) : in_(read_fd), out_(write_fd) {}
  bool send(const std::string& line) {
    std::string s = line + "\n";
    std::size_t done = 0;
    while (done < s.size()) {
      const ssize_t n = ::write(out_, s.data() + done, s.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  // nullopt at end of file (the other process is gone).
  std::optional<std::string> receive() {
    for (;;) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      char chunk[4096];
      const ssize_t n = ::read(in_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int in_, out_;
  std::string buf_;
};

// The gateway (the parent process): returns the server's part of the report (empty on failure); ok = the
// clients' process ended well too.
json::object run_server(const Options& o, LinePipe& pipe, bool& ok);
// The clients (the child process): the exit status of the child.
int run_clients(const Options& o, LinePipe& pipe);

}  // namespace sigil_load
