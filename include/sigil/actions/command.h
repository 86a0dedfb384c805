// The `command` action (spec 13: `[COMMAND:name]`, `[EXECUTE:name]`): runs a command the operator
// registered under a name. The model chooses only the name; the program and its arguments are the
// operator's, so a model can never run anything else or pass anything to it.
//
// What the handler promises:
// - Names match case-insensitively (ASCII) and exactly, after trimming. An unknown name is an error listing
//   the known ones (at most 10): `command: unknown command "x"; known: backup, status`. With none
//   configured every directive is an error `command: no commands are configured`.
// - The program runs through actions::detail::run_captured: no shell, empty stdin, its own process group,
//   killed with everything it started after `timeout` or when the executor stops the handler
//   (ActionContext::stop_token(), noticed within ~20 ms). It holds descriptors 0-2 only and gets an
//   allow-listed environment (PATH, HOME, LANG, LANGUAGE, LC_*, TZ, TMPDIR): never the gateway's sockets,
//   SIGIL_* variables, the model key or channel tokens.
// - Exit 0: ok `command backup: done`, result {"exit":0,"output":…}: stdout cut to `max_output` bytes at a
//   character boundary, ill-formed UTF-8 replaced by U+FFFD, and "truncated":true when it was cut. Output
//   is only cut, never a reason to stop the program, unless it exceeds 64 × max_output (then it is killed:
//   a runaway, not a result).
// - Exit non-zero: error `command backup: exited with status 3: <first line of stderr>`; killed by a
//   signal, timed out, missing or not executable: an error saying which.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "sigil/exec/handler.h"

namespace sigil::actions {

struct CommandSpec {
  std::string name;               // what the model writes: [COMMAND:name]
  std::string program;            // a path, or a name looked up in PATH
  std::vector<std::string> args;  // argv[1..], exactly as given (no shell)
  std::chrono::milliseconds timeout{10000};
  std::size_t max_output = 16 * 1024;  // stdout bytes kept in the result
  std::string description;             // for prompt docs: what the command does
};

struct CommandConfig {
  std::vector<CommandSpec> commands;
};

void add_command_handlers(exec::HandlerTable& table, CommandConfig config);

}  // namespace sigil::actions
