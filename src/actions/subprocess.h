// Runs an external program as a separate process and captures what it writes, with a time limit.
//
// No shell: the program gets exactly `args`, and its input comes on stdin, never on its command line.
// posix_spawn (posix_spawnp when the program name has no '/'), in a process group of its own so that a
// time-out kills whatever the program started too. Every path through run_captured() reaps the child:
// nothing it starts outlives the call as a zombie of ours.
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>
#include <vector>

#include "sigil/actions/result.h"

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
};

struct RunOutcome {
  std::string output;   // stdout
  std::string errors;   // stderr, at most max_errors bytes
  bool exited = false;  // true: ended by exit(exit_code); false: killed by signal `signal`
  int exit_code = 0;
  int signal = 0;
};

// Fails with tool_missing (ENOENT from spawning: not installed), permission_denied (not executable),
// timeout (killed after `timeout`, or stopped through `stop`), tool_failed (too much output) or io. A program
// that runs and exits non-zero is not a failure here: the outcome says how it ended.
Result<RunOutcome> run_captured(const RunRequest& request);

}  // namespace sigil::actions::detail
