#include "model/recording_sink.h"

#include <stdlib.h>  // mkstemps
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace sigil::model::testing {

TempFile::TempFile(const std::string& content, const std::string& suffix) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("sigil-model-XXXXXX" + suffix)).string();
  int fd = ::mkstemps(pattern.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw std::runtime_error("mkstemps failed");
  ::close(fd);
  path_ = pattern;
  std::ofstream(path_, std::ios::binary) << content;
}

TempFile::~TempFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace sigil::model::testing
