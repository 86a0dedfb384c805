// Runs an external program as a separate process and captures what it writes, with a time limit.
//
// No shell: the program gets exactly `args`, and its input comes on stdin, never on its command line.
// posix_spawn (posix_spawnp when the program name has no '/'), in a process group of its own so that a
// time-out kills whatever the program started too. Every path through run_captured() reaps the child:
// nothing it starts outlives the call as a zombie of ours.
//
// The child gets only what it needs (docs/security.md, "Child processes"):
// - descriptors 0, 1 and 2 (its stdin socket, stdout and stderr pipes) and nothing else: every other
//   descriptor of ours is closed in the child before exec, close-on-exec or not (Asio's sockets are not);
// - an environment built from an allow-list of our own (kPassedEnvironment: PATH, HOME, LANG, LANGUAGE,
//   LC_*, TZ, TMPDIR) plus the names the caller lists in RunRequest::pass_env; nothing else, so no SIGIL_*
//   variable, model key or channel token ever reaches a child.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>
#include <vector>

#include "sigil/actions/result.h"
#include "sigil/actions/unique_fd.h"

namespace sigil::actions::detail {

struct RunRequest {
  std::string program;            // a path, or a name looked up in PATH
  std::vector<std::string> args;  // argv[1..]; argv[0] is `program`
  std::string input;              // written to the child's stdin, which is then closed
  std::chrono::milliseconds timeout{20000};
  std::size_t max_output = 64u << 20;  // stdout beyond this kills the child (tool_failed)
  std::size_t max_errors = 4096;       // stderr beyond this is dropped, not an error
  // A stop request kills the child (seen within ~20 ms) and fails the call with timeout, "stopped; killed".
  std::stop_token stop;
  // Variables of ours passed on besides the allow-list, by exact name (e.g. ESPEAK_DATA_PATH for
  // espeak-ng); unset ones are skipped.
  std::vector<std::string> pass_env;
};

// The names every child may inherit from our environment; a trailing '*' matches any suffix (LC_*).
inline constexpr const char* kPassedEnvironment[] = {"PATH", "HOME", "LANG",  "LANGUAGE",
                                                     "LC_*", "TZ",   "TMPDIR"};

// The environment a child gets: our variables whose names kPassedEnvironment or `extra` allow, in the
// order of `ours` (a "NAME=value" list ending in nullptr, like environ).
std::vector<std::string> child_environment(const char* const* ours, const std::vector<std::string>& extra);

struct RunOutcome {
  std::string output;   // stdout
  std::string errors;   // stderr, at most max_errors bytes
  bool exited = false;  // true: ended by exit(exit_code); false: killed by signal `signal`
  int exit_code = 0;
  int signal = 0;
};

// Two ends of a child's standard stream, both close-on-exec (spawn_process() dups the child's end).
struct ChildStream {
  UniqueFd parent, child;
};
// For a child's stdin: a socket pair, so that writing to a child that has quit gives EPIPE (send with
// MSG_NOSIGNAL), not SIGPIPE: a pipe would need the process-wide signal disposition changed.
Result<ChildStream> child_input();
// For a child's stdout or stderr: a pipe, the parent reading.
Result<ChildStream> child_output();

// Starts argv[0] (a path, or a name looked up in PATH) with stdin_fd, stdout_fd and stderr_fd as its 0, 1
// and 2 (stderr_fd < 0: it keeps ours) and no other descriptor, `env` as its whole environment, in a
// process group of its own with default signal handling. The caller reaps it. Fails as run_captured() does
// when the program cannot be started.
Result<pid_t> spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                            int stdin_fd, int stdout_fd, int stderr_fd);

// Fails with tool_missing (ENOENT from spawning: not installed), permission_denied (not executable),
// timeout (killed after `timeout`, or stopped through `stop`), tool_failed (too much output) or io. A program
// that runs and exits non-zero is not a failure here: the outcome says how it ended.
Result<RunOutcome> run_captured(const RunRequest& request);

}  // namespace sigil::actions::detail
