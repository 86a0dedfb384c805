// Files compiled into the binary at build time (cmake/embed.cmake): the web chat page and the examples
// (the demo replay script), so `sigil serve` needs nothing beside the binary.
#pragma once

#include <span>
#include <string_view>

namespace sigil::embed {

struct File {
  std::string_view path;  // relative to its folder, '/'-separated: "index.html", "demo-replay.jsonl"
  std::string_view data;  // the exact bytes
};

// Every file under web/.
std::span<const File> web_assets();
// Every file under examples/.
std::span<const File> examples();

// The file with exactly this path, or nullptr.
const File* find(std::span<const File> files, std::string_view path);

}  // namespace sigil::embed
