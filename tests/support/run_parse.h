// Test support: run the parser over a whole reply with a given chunking and collect the summary.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/catalog/registry.h"
#include "sigil/parse/parser.h"
#include "sigil/parse/summary.h"

namespace sigil::testing {

struct RunOptions {
  bool say = false;
  bool think_open = false;
  bool cut_off = false;
  std::vector<std::string> deny;
  std::vector<std::string> mcp_servers{"brave-search", "github", "my_server", "context7"};
  std::optional<text::stage1::Kernel> stage1_kernel;  // unset: the best one here
  bool whole_markup = true;                           // ParserOptions::whole_markup
  bool blank_gaps = true;                             // ParserOptions::blank_gaps
  bool whole_names = true;                            // ParserOptions::whole_names
  bool repeated_tags = true;                          // ParserOptions::repeated_tags
  // gen::run_events: each chunk is fed from one reused buffer, overwritten after every feed (a caller that
  // reuses its buffer: the parser may keep no view of a chunk past its feed()).
  bool reuse_buffer = false;
};

// The parser's options for a run (what RunOptions says beyond the registry and the finish reason).
parse::ParserOptions parser_options(const RunOptions& options);

// The built-in registry with the conformance suite's MCP servers (cached per server list).
const catalog::Registry& conformance_registry();

struct RunResult {
  boost::json::object summary;  // as `sigil parse` prints it
  parse::ParserStats stats;
  std::vector<std::string> text_events;  // visible text events, in order
};

// Feeds `reply` in chunks of `chunk` bytes (0: whole) and returns the summary.
RunResult run_parse(std::string_view reply, const RunOptions& options, std::size_t chunk);

// Standard base64 (padding and non-alphabet bytes ignored), for the vectors' `input_b64`.
std::string base64_decode(std::string_view in);

// Deep equality with numbers compared by value (90 == 90.0; integers exactly) and objects by key set.
bool same_json(const boost::json::value& a, const boost::json::value& b);

}  // namespace sigil::testing
