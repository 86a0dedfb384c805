// `sigil chat [--config FILE] [--data DIR] [--conversation ID]`: a conversation with the gateway's agent
// on the terminal, through the console channel (docs/channels.md).
#pragma once

#include <iosfwd>
#include <string>

#include "app/config.h"

namespace sigil::app {

struct ChatCommandOptions {
  ConfigFlags flags;  // --config, --data (no --listen: no server is started)
  std::string conversation = "console";
  std::string user = "console";
};

// Loads the configuration like `sigil serve`, starts the gateway without its HTTP server (the scheduler
// runs: due tasks print their turns here too), then reads one message per line from `in` and prints each
// reply as it streams (reactions, files and voice notes through the console channel; files are saved in
// DATA/out). Delivery fallbacks and turn problems go to `err` as `sigil: ...` lines. A prompt `> ` is
// printed when `in` is a terminal. Returns 0 at the end of input, 2 on a configuration error, 1 when the
// gateway cannot start.
int run_chat(const ChatCommandOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace sigil::app
