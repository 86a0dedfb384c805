#include "prompt_command.h"

#include <ostream>

#include "action_names.h"
#include "sigil/catalog/prompt_doc.h"
#include "sigil/catalog/registry.h"
#include "sigil/catalog/tool_schema.h"
#include "sigil/parse/json_text.h"

namespace sigil::app {

int run_prompt(const PromptCommandOptions& options, std::ostream& out, std::ostream& err) {
  catalog::RegistryOptions registry_options;
  registry_options.mcp_servers = options.mcp_servers;
  const catalog::Registry registry = catalog::Registry::builtin(registry_options);
  if (!check_action_names(registry, options.deny, "sigil prompt: --deny", err)) return 2;

  catalog::PromptOptions prompt_options;
  prompt_options.denied = options.deny;
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
