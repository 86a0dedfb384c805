#include "sigil/actions/mcp_stdio.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "actions/subprocess.h"
#include "sigil/actions/unique_fd.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace sigil::actions {
namespace {

// A server that ignores SIGTERM this long is killed.
constexpr int kTermGraceMs = 2000;
// A line longer than this is no JSON-RPC message we want: the server is broken.
constexpr std::size_t kMaxLine = 16u << 20;

std::string errno_text(int err) { return std::system_category().message(err); }

std::string exit_text(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

// Whether the child has ended, leaving it unreaped.
bool exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

class StdioTransport final : public McpTransport {
 public:
  explicit StdioTransport(McpStdioOptions options) : options_(std::move(options)) {}
  ~StdioTransport() override { close(); }
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  Result<void> open(Events events) override {
    close();
    auto in = detail::child_input();
    if (!in) return std::move(in).error();
    auto out = detail::child_output();
    if (!out) return std::move(out).error();
    UniqueFd in_parent = std::move(in->parent), out_read = std::move(out->parent);

    std::vector<std::string> argv{options_.program};
    argv.insert(argv.end(), options_.args.begin(), options_.args.end());
    std::vector<std::string> env = detail::child_environment(environ, {});
    for (const auto& [name, value] : options_.env) env.push_back(name + "=" + value);
    auto pid = detail::spawn_process(argv, env, in->child.get(), out->child.get(), -1);
    if (!pid) return std::move(pid).error();

    std::lock_guard lock(mu_);
    pid_ = *pid;
    stdin_ = std::move(in_parent);
    closing_ = false;
    reader_ = std::thread([this, fd = std::move(out_read), events = std::move(events)]() mutable {
      read_loop(fd.get(), events);
    });
    return {};
  }

  Result<void> send(std::string_view message) override {
    std::lock_guard lock(write_mu_);
    int fd = -1;
    {
      std::lock_guard state(mu_);
      fd = stdin_.get();
    }
    if (fd < 0) return make_error(ErrorCode::tool_failed, "the server is not running");
    std::string line(message);
    line += '\n';
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t w = ::send(fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0)
        return make_error(ErrorCode::tool_failed, "cannot write to the server: " + errno_text(errno));
      done += static_cast<std::size_t>(w);
    }
    return {};
  }

  void close() override {
    pid_t pid = -1;
    {
      std::lock_guard lock(mu_);
      closing_ = true;
      pid = std::exchange(pid_, -1);
    }
    {
      // Closing stdin is the polite stop (the spec's first step for stdio); the signals follow.
      std::lock_guard writing(write_mu_);
      std::lock_guard lock(mu_);
      stdin_.reset();
    }
    if (pid > 0) {
      ::kill(-pid, SIGTERM);
      for (int waited = 0; waited < kTermGraceMs && !exited(pid); waited += 10) ::poll(nullptr, 0, 10);
      // The leader is not reaped yet (WNOWAIT), so its group id is still reserved and this kill reaches
      // only what it left behind.
      ::kill(-pid, SIGKILL);
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    if (reader_.joinable()) reader_.join();
  }

 private:
  void read_loop(int fd, Events& events) {
    std::string buffer;
    char chunk[64 * 1024];
    std::string reason = "its output ended";
    for (;;) {
      const ssize_t r = ::read(fd, chunk, sizeof chunk);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      buffer.append(chunk, static_cast<std::size_t>(r));
      std::size_t start = 0;
      for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string_view line(buffer.data() + start, nl - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty()) events.on_message(line);
      }
      buffer.erase(0, start);
      if (buffer.size() > kMaxLine) {
        reason = "it wrote a line over " + std::to_string(kMaxLine) + " bytes";
        break;
      }
    }
    pid_t pid = -1;
    {
      std::lock_guard lock(mu_);
      if (closing_) return;
      pid = pid_;
    }
    // Say how it ended when it has (without reaping it: close() does).
    for (int i = 0; i < 50 && pid > 0; ++i) {
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == pid) {
        reason = info.si_code == CLD_EXITED ? exit_text(W_EXITCODE(info.si_status, 0))
                                            : "killed by signal " + std::to_string(info.si_status);
        break;
      }
      ::poll(nullptr, 0, 10);
    }
    events.on_closed(reason);
  }

  McpStdioOptions options_;
  std::mutex write_mu_;  // one message at a time on stdin
  std::mutex mu_;
  pid_t pid_ = -1;
  UniqueFd stdin_;
  bool closing_ = false;
  std::thread reader_;
};

}  // namespace

std::unique_ptr<McpTransport> make_mcp_stdio_transport(McpStdioOptions options) {
  return std::make_unique<StdioTransport>(std::move(options));
}

}  // namespace sigil::actions
