// `sigil prompt`: the system-prompt section that teaches a model the actions, or the same actions as OpenAI
// tool schemas (`--tools`), as the configuration has them: an action whose provider is not configured
// (search without [search] provider, fetch-page with [fetch] enabled = false, createAIImage without
// [images] model, viewImage without [model] vision) or that [agent] denied_actions forbids is left
// out, exactly as `sigil serve` leaves it out of what it teaches its model.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/config.h"

namespace sigil::app {

struct PromptCommandOptions {
  bool tools = false;  // print the tools JSON array instead of the prompt section
  bool say = false;    // say mode: also teach <say> and <file>
  std::vector<std::string> deny;
  std::vector<std::string> mcp_servers;  // besides the configured [mcp.servers.NAME] (not started here)
  ConfigFlags flags;                     // --config (default ./sigil.toml if present)
  EnvLookup env = process_environment();
};

// Writes the section (or one line of JSON) to `out`. Returns the exit status: 2 for an unknown --deny name
// or an unusable configuration (the message on `err`).
int run_prompt(const PromptCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace sigil::app
