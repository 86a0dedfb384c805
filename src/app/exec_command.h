// `sigil exec`: parse one reply and run its directives against a store folder, with the console as the
// channel, then print the turn report (docs/cli.md, "sigil exec").
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace sigil::app {

struct ExecCommandOptions {
  std::string data_dir;  // required: the store (sigil.db), outbound/ and voice/ live here
  std::string user = "console";
  std::string conversation = "console";
  std::string turn;       // empty: a new turn id, "turn-" and 16 random hex digits (text::random_id)
  std::string now;        // ISO 8601; empty: the wall clock
  std::size_t chunk = 0;  // 0: feed what each read() gives
  bool say = false;
  std::vector<std::string> deny;
  std::vector<std::string> files_dirs;  // folders files may be sent from; empty: DATA/outbound
};

// Reads the reply from the file descriptor `in_fd` as it arrives (so directives run while the reply is
// still streaming in) and prints the report as one JSON line to `out`. Returns the exit status: 0 when
// the turn ran (whatever its directives did), 1 when the store or a folder cannot be opened, 2 on a usage
// error.
int run_exec(const ExecCommandOptions& options, int in_fd, std::ostream& out, std::ostream& err);

}  // namespace sigil::app
