#include "sigil/actions/builtin_handlers.h"

#include <string>
#include <utility>

#include "sigil/actions/voice_action.h"

namespace sigil::actions {
Result<exec::HandlerTable> builtin_handlers(const BuiltinConfig& config) {
  exec::HandlerTable table;

  FilesConfig files;
  if (!config.file_roots.empty()) {
    FileSandbox::Options options;
    options.roots = config.file_roots;
    options.max_bytes = config.max_file_bytes;
    auto sandbox = FileSandbox::create(std::move(options));
    if (!sandbox) return make_error(sandbox.error().code, "file folders: " + sandbox.error().message);
    files.sandbox = std::make_shared<const FileSandbox>(std::move(*sandbox));
  }
  ViewImageConfig view = config.view_image;
  view.files = files.sandbox;
  view.fetch = config.fetch;
  add_view_image_handlers(table, view);
  files.allow_cleanup = config.allow_cleanup;
  files.allowed_targets = config.messages.allowed;
  add_send_file_handlers(table, std::move(files));

  VoiceConfig voice;
  if (config.voice_enabled) voice.synth = std::make_shared<const VoiceSynth>(config.voice);
  voice.budget = std::make_shared<VoiceBudget>(config.voice_budget);
  add_voice_handlers(table, std::move(voice));

  add_react_handlers(table, config.react);
  add_send_message_handlers(table, config.messages);
  add_memory_handlers(table, config.memory);
  ArchiveConfig archive = config.archive;
  archive.scope = config.memory.scope;
  add_archive_handlers(table, archive);
  add_calculate_handlers(table, config.calculate);
  add_schedule_handlers(table, config.schedule);
  add_pages_handlers(table, config.pages);
  add_command_handlers(table, config.commands);

  if (auto added = add_search_handlers(table, config.search); !added) return std::move(added).error();
  if (auto added = add_fetch_page_handlers(table, config.fetch); !added) return std::move(added).error();
  if (auto added = add_create_image_handlers(table, config.images); !added) return std::move(added).error();
  add_mcp_handlers(table, config.mcp);
  return table;
}

std::vector<std::string> untaught_actions(const BuiltinConfig& config) {
  std::vector<std::string> out;
  if (!search_configured(config.search)) out.push_back("search");
  if (!config.fetch.enabled) out.push_back("fetch-page");
  if (!image_generation_configured(config.images)) out.push_back("createAIImage");
  if (!config.view_image.enabled) out.push_back("viewImage");
  return out;
}

}  // namespace sigil::actions
