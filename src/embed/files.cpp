#include "sigil/embed/files.h"

namespace sigil::embed {

const File* find(std::span<const File> files, std::string_view path) {
  for (const File& file : files)
    if (file.path == path) return &file;
  return nullptr;
}

}  // namespace sigil::embed
