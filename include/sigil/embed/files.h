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

// The web page's files (web/, the ones CMakeLists.txt names).
std::span<const File> web_assets();
// The example files the program uses (examples/, the ones CMakeLists.txt names).
std::span<const File> examples();

// The file with exactly this path, or nullptr.
const File* find(std::span<const File> files, std::string_view path);

}  // namespace sigil::embed
