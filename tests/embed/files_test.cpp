// The build embeds web/ and examples/ byte for byte (cmake/embed.cmake).
#include "sigil/embed/files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void expect_same_as_folder(std::span<const sigil::embed::File> files, const std::filesystem::path& folder) {
  std::size_t on_disk = 0;
  if (std::filesystem::is_directory(folder)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string rel = std::filesystem::relative(entry.path(), folder).generic_string();
      if (rel.starts_with(".") || rel.find("/.") != std::string::npos) continue;
      ++on_disk;
      const sigil::embed::File* file = sigil::embed::find(files, rel);
      ASSERT_NE(file, nullptr) << rel << " is not embedded (re-run cmake after adding files)";
      EXPECT_EQ(file->data, read_file(entry.path())) << rel;
    }
  }
  EXPECT_EQ(files.size(), on_disk);
}

TEST(Embed, ExamplesAreEmbeddedByteForByte) {
  expect_same_as_folder(sigil::embed::examples(), std::filesystem::path(SIGIL_SOURCE_DIR) / "examples");
  EXPECT_NE(sigil::embed::find(sigil::embed::examples(), "demo-reply.txt"), nullptr);
}

TEST(Embed, WebAssetsAreEmbeddedByteForByte) {
  expect_same_as_folder(sigil::embed::web_assets(), std::filesystem::path(SIGIL_SOURCE_DIR) / "web");
}

TEST(Embed, FindNeedsTheExactPath) {
  EXPECT_EQ(sigil::embed::find(sigil::embed::examples(), "DEMO-REPLY.TXT"), nullptr);
  EXPECT_EQ(sigil::embed::find(sigil::embed::examples(), "/demo-reply.txt"), nullptr);
  EXPECT_EQ(sigil::embed::find(sigil::embed::examples(), ""), nullptr);
}

}  // namespace
