#include "parse_command.h"

#include <iostream>
#include <iterator>
#include <string>

#include "action_names.h"
#include "sigil/catalog/registry.h"
#include "sigil/parse/json_text.h"
#include "sigil/parse/parser.h"
#include "sigil/parse/summary.h"

namespace sigil::app {

int run_parse(const ParseCommandOptions& options, std::istream& in, std::ostream& out) {
  std::string reply;
  {
    // Read in large blocks: a character at a time is slower than the parser itself.
    std::string block(1 << 16, '\0');
    while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0)
      reply.append(block.data(), static_cast<std::size_t>(in.gcount()));
  }
  catalog::RegistryOptions registry_options;
  registry_options.mcp_servers = options.mcp_servers;
  const catalog::Registry registry = catalog::Registry::builtin(registry_options);

  if (!check_action_names(registry, options.deny, "sigil parse: --deny", std::cerr)) return 2;

  parse::ParserOptions parser_options;
  parser_options.say_mode = options.say;
  parser_options.think_open = options.think_open;
  parser_options.denied_actions = options.deny;

  parse::SummarySink summary;
  parse::EventsWriter writer(out);
  parse::EventSink& sink = options.events ? static_cast<parse::EventSink&>(writer) : summary;
  parse::Parser parser(registry, sink, parser_options);
  const std::size_t step = options.chunk == 0 ? reply.size() : options.chunk;
  for (std::size_t i = 0; i < reply.size(); i += step) parser.feed(std::string_view(reply).substr(i, step));
  parser.finish(options.cut_off ? parse::FinishReason::Length : parse::FinishReason::Stop);

  if (options.events) return 0;
  if (options.stats) {
    const parse::ParserStats& s = parser.stats();
    boost::json::object o;
    o["bytes_in"] = s.bytes_in;
    o["text_bytes"] = summary.clean_text().size();
    o["directives"] = summary.directives().size();
    o["diagnostics"] = summary.diagnostics().size();
    out << parse::json_text(o) << '\n';
    return 0;
  }
  out << parse::json_text(summary.summary()) << '\n';
  return 0;
}

}  // namespace sigil::app
