// The build embeds the files it names from web/ and examples/, byte for byte, and nothing else
// (cmake/embed.cmake): a data folder or a stray file beside them stays out of the binary.
#include "sigil/embed/files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void expect_exactly(std::span<const sigil::embed::File> files, const std::filesystem::path& folder,
                    const std::set<std::string>& names) {
  std::set<std::string> embedded;
  for (const sigil::embed::File& f : files) embedded.insert(std::string(f.path));
  EXPECT_EQ(embedded, names);
  for (const std::string& name : names) {
    const sigil::embed::File* file = sigil::embed::find(files, name);
    ASSERT_NE(file, nullptr) << name;
    EXPECT_EQ(file->data, read_file(folder / name)) << name;
  }
}

TEST(Embed, TheNamedExamplesAreEmbeddedByteForByte) {
  expect_exactly(sigil::embed::examples(), std::filesystem::path(SIGIL_SOURCE_DIR) / "examples",
                 {"demo-replay.jsonl", "demo-reply.txt"});
  // The sample configuration is for reading, not for the binary.
  EXPECT_EQ(sigil::embed::find(sigil::embed::examples(), "sigil.toml"), nullptr);
}

TEST(Embed, TheNamedWebAssetsAreEmbeddedByteForByte) {
  expect_exactly(sigil::embed::web_assets(), std::filesystem::path(SIGIL_SOURCE_DIR) / "web",
                 {"app.js", "conversations.js", "icon.svg", "index.html", "render.js", "style.css"});
}

TEST(Embed, FindNeedsTheExactPath) {
  EXPECT_EQ(sigil::embed::find(sigil::embed::examples(), "DEMO-REPLY.TXT"), nullptr);
  EXPECT_EQ(sigil::embed::find(sigil::embed::examples(), "/demo-reply.txt"), nullptr);
  EXPECT_EQ(sigil::embed::find(sigil::embed::examples(), ""), nullptr);
}

}  // namespace
