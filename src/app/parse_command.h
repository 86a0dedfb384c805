// `sigil parse`: the parser on the command line (spec/cli-parse.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace sigil::app {

struct ParseCommandOptions {
  std::size_t chunk = 0;  // 0: the whole reply at once
  bool say = false;
  bool events = false;
  bool stats = false;
  bool think_open = false;
  bool cut_off = false;
  std::vector<std::string> mcp_servers;
  std::vector<std::string> deny;
};

// Reads a reply from `in` and prints what the parser found to `out`. Returns the exit status.
int run_parse(const ParseCommandOptions& options, std::istream& in, std::ostream& out);

}  // namespace sigil::app
