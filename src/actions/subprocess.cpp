#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>

#include "sigil/actions/unique_fd.h"

// Closing every inherited descriptor inside posix_spawn needs glibc's closefrom file action (2.34+).
#if !defined(__GLIBC__) || __GLIBC__ < 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ < 34)
#error "run_captured() needs posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)"
#endif

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace sigil::actions::detail {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int err) { return std::system_category().message(err); }

// Kills and reaps the child unless finish() did. Kills the whole process group: the child is its leader
// (POSIX_SPAWN_SETPGROUP 0), and the group id stays reserved while the leader is an unreaped zombie, so
// the group kill can never hit an unrelated process.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) noexcept : pid_(pid) {}
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  ~ChildGuard() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // Call once the child has exited (seen with WNOWAIT): kills what it left behind, then reaps it.
  Result<int> finish() noexcept {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    const int err = errno;
    pid_ = -1;
    if (r < 0) return make_error(ErrorCode::io, "waitpid failed: " + errno_text(err));
    return status;
  }

 private:
  pid_t pid_;
};

// One posix_spawn argument object, made by `init` and freed by `destroy` around one spawn.
template <class T, auto init, auto destroy>
struct SpawnObject {
  T value;
  SpawnObject() { init(&value); }
  ~SpawnObject() { destroy(&value); }
  SpawnObject(const SpawnObject&) = delete;
  SpawnObject& operator=(const SpawnObject&) = delete;
};
using SpawnFileActions =
    SpawnObject<posix_spawn_file_actions_t, posix_spawn_file_actions_init, posix_spawn_file_actions_destroy>;
using SpawnAttr = SpawnObject<posix_spawnattr_t, posix_spawnattr_init, posix_spawnattr_destroy>;

int poll_timeout_ms(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, INT_MAX));
}

Error timeout_error(std::chrono::milliseconds timeout) {
  return make_error(ErrorCode::timeout, "timed out after " + std::to_string(timeout.count()) + " ms; killed");
}

Error stopped_error() { return make_error(ErrorCode::timeout, "stopped; killed"); }

// How long one wait may last: until the deadline, but short enough to notice a stop request soon.
int wait_ms(Clock::time_point deadline, const std::stop_token& stop) {
  const int left = poll_timeout_ms(deadline);
  return stop.stop_possible() ? std::min(left, 20) : left;
}

bool set_nonblocking(int fd) noexcept {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

bool allowed_name(std::string_view name, const std::vector<std::string>& extra) {
  for (std::string_view pattern : kPassedEnvironment) {
    if (!pattern.empty() && pattern.back() == '*') {
      pattern.remove_suffix(1);
      if (name.size() > pattern.size() && name.substr(0, pattern.size()) == pattern) return true;
    } else if (name == pattern) {
      return true;
    }
  }
  return std::find(extra.begin(), extra.end(), name) != extra.end();
}

}  // namespace

std::vector<std::string> child_environment(const char* const* ours, const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (; ours != nullptr && *ours != nullptr; ++ours) {
    const std::string_view entry(*ours);
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    if (allowed_name(entry.substr(0, eq), extra)) out.emplace_back(entry);
  }
  return out;
}

Result<ChildStream> child_input() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return make_error(ErrorCode::io, "socketpair failed: " + errno_text(errno));
  return ChildStream{UniqueFd(pair[0]), UniqueFd(pair[1])};
}

Result<ChildStream> child_output() {
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) return make_error(ErrorCode::io, "pipe failed: " + errno_text(errno));
  return ChildStream{UniqueFd(pipe[0]), UniqueFd(pipe[1])};
}

Result<pid_t> spawn_process(const std::vector<std::string>& argv_in, const std::vector<std::string>& env,
                            int stdin_fd, int stdout_fd, int stderr_fd) {
  if (argv_in.empty() || argv_in.front().empty())
    return make_error(ErrorCode::invalid_argument, "no program to run");
  SpawnFileActions actions;
  // dup2 clears FD_CLOEXEC on the copies. Then everything from 3 up is closed in the child: not every
  // descriptor of ours is close-on-exec (Asio opens its sockets without SOCK_CLOEXEC, and a library or
  // another thread may open anything at any time), and a child holding a listening or client socket of the
  // gateway could read from it, write to it, or keep it open after the gateway closed it.
  if (posix_spawn_file_actions_adddup2(&actions.value, stdin_fd, STDIN_FILENO) != 0 ||
      posix_spawn_file_actions_adddup2(&actions.value, stdout_fd, STDOUT_FILENO) != 0 ||
      (stderr_fd >= 0 && posix_spawn_file_actions_adddup2(&actions.value, stderr_fd, STDERR_FILENO) != 0) ||
      posix_spawn_file_actions_addclosefrom_np(&actions.value, STDERR_FILENO + 1) != 0)
    return make_error(ErrorCode::io, "posix_spawn_file_actions failed");

  SpawnAttr attr;
  sigset_t empty, all;
  sigemptyset(&empty);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  if (posix_spawnattr_setflags(&attr.value,
                               POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) != 0 ||
      posix_spawnattr_setpgroup(&attr.value, 0) != 0 ||
      posix_spawnattr_setsigmask(&attr.value, &empty) != 0 ||
      posix_spawnattr_setsigdefault(&attr.value, &all) != 0)
    return make_error(ErrorCode::io, "posix_spawnattr failed");

  std::vector<std::string> argv_storage = argv_in;
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::vector<std::string> env_storage = env;
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  const std::string& program = argv_in.front();
  pid_t pid = -1;
  const bool has_slash = program.find('/') != std::string::npos;
  const int rc =
      has_slash ? posix_spawn(&pid, program.c_str(), &actions.value, &attr.value, argv.data(), envp.data())
                : posix_spawnp(&pid, program.c_str(), &actions.value, &attr.value, argv.data(), envp.data());
  if (rc != 0) {
    if (rc == ENOENT) return make_error(ErrorCode::tool_missing, "'" + program + "' not found");
    if (rc == EACCES)
      return make_error(ErrorCode::permission_denied, "'" + program + "' cannot be run: " + errno_text(rc));
    return make_error(ErrorCode::io, "cannot start '" + program + "': " + errno_text(rc));
  }
  return pid;
}

Result<RunOutcome> run_captured(const RunRequest& request) {
  if (request.program.empty()) return make_error(ErrorCode::invalid_argument, "no program to run");

  auto in = child_input();
  if (!in) return std::move(in).error();
  auto out = child_output();
  if (!out) return std::move(out).error();
  auto err = child_output();
  if (!err) return std::move(err).error();
  UniqueFd in_parent = std::move(in->parent), in_child = std::move(in->child);
  UniqueFd out_read = std::move(out->parent), out_write = std::move(out->child);
  UniqueFd err_read = std::move(err->parent), err_write = std::move(err->child);

  std::vector<std::string> args;
  args.push_back(request.program);
  args.insert(args.end(), request.args.begin(), request.args.end());
  auto spawned = spawn_process(args, child_environment(environ, request.pass_env), in_child.get(),
                               out_write.get(), err_write.get());
  if (!spawned) return std::move(spawned).error();
  const pid_t pid = *spawned;
  ChildGuard child(pid);
  in_child.reset();
  out_write.reset();
  err_write.reset();
  if (!set_nonblocking(in_parent.get()) || !set_nonblocking(out_read.get()) ||
      !set_nonblocking(err_read.get()))
    return make_error(ErrorCode::io, "fcntl failed: " + errno_text(errno));

  const auto deadline = Clock::now() + request.timeout;
  RunOutcome outcome;
  std::size_t written = 0;
  if (request.input.empty()) in_parent.reset();  // EOF at once
  char buf[64 * 1024];

  while (out_read || err_read) {
    pollfd fds[3];
    nfds_t n = 0;
    auto watch = [&](const UniqueFd& fd, short events) {
      if (!fd) return -1;
      fds[n] = pollfd{fd.get(), events, 0};
      return static_cast<int>(n++);
    };
    const int in_at = watch(in_parent, POLLOUT);
    const int out_at = watch(out_read, POLLIN);
    const int err_at = watch(err_read, POLLIN);
    if (request.stop.stop_requested()) return stopped_error();
    if (Clock::now() >= deadline) return timeout_error(request.timeout);
    const int ready = ::poll(fds, n, wait_ms(deadline, request.stop));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return make_error(ErrorCode::io, "poll failed: " + errno_text(errno));
    }
    if (ready == 0) continue;

    if (in_at >= 0 && fds[in_at].revents != 0) {
      const std::size_t chunk = std::min<std::size_t>(request.input.size() - written, sizeof buf);
      const ssize_t w =
          ::send(in_parent.get(), request.input.data() + written, chunk, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0) written += static_cast<std::size_t>(w);
      // The child closing its stdin early is its business; how it ends tells whether that was a failure.
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == request.input.size()) in_parent.reset();
    }
    if (out_at >= 0 && fds[out_at].revents != 0) {
      const ssize_t r = ::read(out_read.get(), buf, sizeof buf);
      if (r > 0) {
        outcome.output.append(buf, static_cast<std::size_t>(r));
        if (outcome.output.size() > request.max_output)
          return make_error(ErrorCode::tool_failed, "'" + request.program + "' wrote more than " +
                                                        std::to_string(request.max_output) +
                                                        " bytes; killed");
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        out_read.reset();
      }
    }
    if (err_at >= 0 && fds[err_at].revents != 0) {
      const ssize_t r = ::read(err_read.get(), buf, sizeof buf);
      if (r > 0) {
        const std::size_t room = request.max_errors - std::min(request.max_errors, outcome.errors.size());
        outcome.errors.append(buf, std::min(room, static_cast<std::size_t>(r)));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        err_read.reset();
      }
    }
  }
  in_parent.reset();

  // Both pipes are closed; wait (still within the deadline) for the child itself to end. WNOWAIT leaves
  // it a zombie so that finish() can kill its group before reaping it.
  for (;;) {
    siginfo_t info{};
    const int r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid) break;
    if (r < 0 && errno != EINTR) return make_error(ErrorCode::io, "waitid failed: " + errno_text(errno));
    if (request.stop.stop_requested()) return stopped_error();
    if (Clock::now() >= deadline) return timeout_error(request.timeout);
    ::poll(nullptr, 0, std::min(5, poll_timeout_ms(deadline)));
  }
  auto status = child.finish();
  if (!status) return std::move(status).error();
  if (WIFEXITED(*status)) {
    outcome.exited = true;
    outcome.exit_code = WEXITSTATUS(*status);
  } else if (WIFSIGNALED(*status)) {
    outcome.signal = WTERMSIG(*status);
  }
  return outcome;
}

}  // namespace sigil::actions::detail
