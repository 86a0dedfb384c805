#include "prompt_command.h"

#include <ostream>

#include "action_names.h"
#include "app/provider_actions.h"
#include "sigil/catalog/prompt_doc.h"
#include "sigil/catalog/registry.h"
#include "sigil/catalog/tool_schema.h"
#include "sigil/parse/json_text.h"

namespace sigil::app {

int run_prompt(const PromptCommandOptions& options, std::ostream& out, std::ostream& err) {
  Config config;
  try {
    config = load_config(options.flags, options.env);
  } catch (const ConfigError& e) {
    err << "sigil prompt: " << e.what() << '\n';
    return 2;
  }
  catalog::RegistryOptions registry_options;
  registry_options.mcp_servers = options.mcp_servers;
  for (const McpServerConfig& server : config.mcp_servers)
    registry_options.mcp_servers.push_back(server.name);
  const catalog::Registry registry = catalog::Registry::builtin(registry_options);
  if (!check_action_names(registry, options.deny, "sigil prompt: --deny", err)) return 2;
  if (!check_action_names(registry, config.agent.denied_actions, "sigil prompt: [agent] denied_actions", err))
    return 2;

  actions::BuiltinConfig builtin;
  apply_provider_settings(config, builtin);
  catalog::PromptOptions prompt_options;
  prompt_options.denied = options.deny;
  prompt_options.denied.insert(prompt_options.denied.end(), config.agent.denied_actions.begin(),
                               config.agent.denied_actions.end());
  for (std::string& name : actions::untaught_actions(builtin))
    prompt_options.denied.push_back(std::move(name));
  prompt_options.say_mode = options.say;
  // One line, like `sigil parse`: scripts read it whole; `jq .` makes it readable.
  if (options.tools) {
    out << parse::json_text(catalog::tool_schemas(registry, prompt_options)) << '\n';
  } else {
    out << catalog::prompt_section(registry, prompt_options);
  }
  return 0;
}

}  // namespace sigil::app
