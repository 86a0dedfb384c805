// Every built-in action's handler (spec 13) in one table, from one configuration.
//
// Actions whose provider is not configured still get a handler that says so: a directive never meets
// "no handler" for a built-in action, and the model learns what is missing
// (e.g. `search: no web search provider is configured`).
#pragma once

#include <filesystem>
#include <vector>

#include "sigil/actions/archive.h"
#include "sigil/actions/calculate.h"
#include "sigil/actions/command.h"
#include "sigil/actions/create_image.h"
#include "sigil/actions/fetch_page.h"
#include "sigil/actions/mcp.h"
#include "sigil/actions/memory.h"
#include "sigil/actions/pages.h"
#include "sigil/actions/react.h"
#include "sigil/actions/result.h"
#include "sigil/actions/schedule.h"
#include "sigil/actions/send_file.h"
#include "sigil/actions/send_message.h"
#include "sigil/actions/view_image.h"
#include "sigil/actions/voice.h"
#include "sigil/actions/voice_budget.h"
#include "sigil/actions/web_search.h"
#include "sigil/exec/handler.h"

namespace sigil::actions {

struct BuiltinConfig {
  // send-file: the allowed folders (none: send-file says no folder is configured).
  std::vector<std::filesystem::path> file_roots;
  std::uint64_t max_file_bytes = std::uint64_t{50} << 20;
  bool allow_cleanup = false;
  // voice: espeak-ng's options; voice_enabled false: voice says it is not configured.
  bool voice_enabled = true;
  VoiceSynth::Options voice;
  VoiceLimits voice_budget;  // one VoiceBudget for the table: its per-minute count spans turns
  ReactConfig react;
  MemoryConfig memory;  // its scope also applies to the archive
  ArchiveConfig archive;
  CalculateConfig calculate;
  SendMessageConfig messages;  // its allow-list also governs send-file's channel + chat
  ScheduleConfig schedule;
  CommandConfig commands;
  PagesConfig pages;
  SearchConfig search;  // no provider: search says so, and is not taught
  FetchConfig fetch;    // enabled false: fetch-page says so, and is not taught
  McpConfig mcp;        // the connected MCP servers
  ImageConfig images;   // no image model: createAIImage says so, and is not taught
  // enabled false: viewImage says so, and is not taught. Its guard settings are `fetch`'s and its files
  // send-file's folders, whatever view_image.fetch and view_image.files say.
  ViewImageConfig view_image;
};

// Fails only when the configuration itself is unusable (a file folder that cannot be opened, a search
// provider without its key, an allow_private entry that is no host or range).
Result<exec::HandlerTable> builtin_handlers(const BuiltinConfig& config);

// The built-in actions this configuration cannot run (search without a provider, fetch-page turned off,
// createAIImage without an image model, viewImage without a model that sees pictures):
// the prompt section and the tool schemas leave them out (catalog::PromptOptions::denied), while their
// handlers still answer a directive written anyway with the reason.
std::vector<std::string> untaught_actions(const BuiltinConfig& config);

}  // namespace sigil::actions
