// `sigil prompt`: the system-prompt section that teaches a model the actions, or the same actions as OpenAI
// tool schemas (`--tools`).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace sigil::app {

struct PromptCommandOptions {
  bool tools = false;  // print the tools JSON array instead of the prompt section
  bool say = false;    // say mode: also teach <say> and <file>
  std::vector<std::string> deny;
  std::vector<std::string> mcp_servers;
};

// Writes the section (or one line of JSON) to `out`. Returns the exit status: 2 for an unknown --deny name.
int run_prompt(const PromptCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace sigil::app
