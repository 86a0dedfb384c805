#include "prompt_command.h"

#include <ostream>

#include "action_names.h"
#include "sigil/parse/json_text.h"
#include "sigil/spec/prompt_doc.h"
#include "sigil/spec/registry.h"
#include "sigil/spec/tool_schema.h"

namespace sigil::app {

int run_prompt(const PromptCommandOptions& options, std::ostream& out, std::ostream& err) {
  spec::RegistryOptions registry_options;
  registry_options.mcp_servers = options.mcp_servers;
  const spec::Registry registry = spec::Registry::builtin(registry_options);
  if (!check_action_names(registry, options.deny, "sigil prompt: --deny", err)) return 2;

  spec::PromptOptions prompt_options;
  prompt_options.denied = options.deny;
  prompt_options.say_mode = options.say;
  // One line, like `sigil parse`: scripts read it whole; `jq .` makes it readable.
  if (options.tools) {
    out << parse::json_text(spec::tool_schemas(registry, prompt_options)) << '\n';
  } else {
    out << spec::prompt_section(registry, prompt_options);
  }
  return 0;
}

}  // namespace sigil::app
