#include "sigil/text/media_types.h"

#include <gtest/gtest.h>

#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "sigil/text/ascii.h"
#include "support/expect_each.h"

namespace sigil::text {
namespace {

using Row = std::pair<std::string_view, std::string_view>;

// The two tables this one replaced, as they were: send-file's (actions/send_file.cpp) and the gateway's
// (server/mime_types.cpp, whose text types carried "; charset=utf-8": the gateway still adds it). Every
// extension keeps its type; the one place they disagreed, ".opus", is Ogg Opus for both now.
constexpr Row kSendFileTypes[] = {
    {"png", "image/png"},        {"jpg", "image/jpeg"},      {"jpeg", "image/jpeg"},
    {"gif", "image/gif"},        {"webp", "image/webp"},     {"bmp", "image/bmp"},
    {"tif", "image/tiff"},       {"tiff", "image/tiff"},     {"heic", "image/heic"},
    {"heif", "image/heif"},      {"ogg", "audio/ogg"},       {"oga", "audio/ogg"},
    {"mp3", "audio/mpeg"},       {"m4a", "audio/mp4"},       {"wav", "audio/wav"},
    {"aac", "audio/aac"},        {"flac", "audio/flac"},     {"mp4", "video/mp4"},
    {"m4v", "video/mp4"},        {"mov", "video/quicktime"}, {"webm", "video/webm"},
    {"mkv", "video/x-matroska"}, {"avi", "video/x-msvideo"}, {"pdf", "application/pdf"},
    {"txt", "text/plain"},       {"csv", "text/csv"},        {"json", "application/json"},
    {"md", "text/markdown"},     {"html", "text/html"},
};

constexpr Row kGatewayTypes[] = {
    {"html", "text/html"},
    {"htm", "text/html"},
    {"css", "text/css"},
    {"js", "text/javascript"},
    {"mjs", "text/javascript"},
    {"json", "application/json"},
    {"jsonl", "application/jsonl"},
    {"txt", "text/plain"},
    {"md", "text/markdown"},
    {"csv", "text/csv"},
    {"svg", "image/svg+xml"},
    {"png", "image/png"},
    {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},
    {"gif", "image/gif"},
    {"webp", "image/webp"},
    {"ico", "image/x-icon"},
    {"woff2", "font/woff2"},
    {"woff", "font/woff"},
    {"ogg", "audio/ogg"},
    {"mp3", "audio/mpeg"},
    {"wav", "audio/wav"},
    {"mp4", "video/mp4"},
    {"webm", "video/webm"},
    {"pdf", "application/pdf"},
    {"zip", "application/zip"},
};

TEST(MediaTypes, EveryExtensionOfTheOldTablesKeepsItsType) {
  for (const auto& rows : {std::span<const Row>(kSendFileTypes), std::span<const Row>(kGatewayTypes)}) {
    for (const auto& [ext, mime] : rows) {
      EXPECT_EQ(mime_type_for_name("file." + std::string(ext)), mime) << ext;
    }
  }
  EXPECT_EQ(mime_type_for_name("voice.opus"), "audio/ogg; codecs=opus");
}

// Spec 14's lists, which send-file's kind_for and the outbox's fallback both spelled out before.
TEST(MediaTypes, KindsAreSpec14sListsAndEverythingElseIsADocument) {
  const std::set<std::string_view> images{"png", "jpg", "jpeg", "gif",  "webp",
                                          "bmp", "tif", "tiff", "heic", "heif"};
  const std::set<std::string_view> audio{"ogg", "oga", "opus", "mp3", "m4a", "wav", "aac", "flac"};
  const std::set<std::string_view> video{"mp4", "m4v", "mov", "webm", "mkv", "avi"};
  std::set<std::string_view> seen;
  for (const MediaType& row : media_types()) {
    EXPECT_TRUE(seen.insert(row.extension).second) << "twice: " << row.extension;
    EXPECT_EQ(row.extension, ascii::to_lower(row.extension));
    const FileKind want = images.count(row.extension) != 0  ? FileKind::image
                          : audio.count(row.extension) != 0 ? FileKind::audio
                          : video.count(row.extension) != 0 ? FileKind::video
                                                            : FileKind::document;
    EXPECT_EQ(row.kind, want) << row.extension;
    EXPECT_EQ(file_kind_for_name("x." + std::string(row.extension)), want) << row.extension;
  }
  EXPECT_EQ(seen.size(), media_types().size());
  for (const auto* set : {&images, &audio, &video}) {
    for (std::string_view ext : *set) EXPECT_EQ(seen.count(ext), 1u) << ext;
  }
}

TEST(MediaTypes, NameRules) {
  EXPECT_EQ(mime_type_for_name("a/b/Photo.JPG"), "image/jpeg");  // any case, last component
  EXPECT_EQ(file_kind_for_name("clips/Holiday.MoV"), FileKind::video);
  test::expect_each(mime_type_for_name,
                    {
                        {"archive.tar.gz", "application/octet-stream"},  // the last dot counts
                        {"noext", "application/octet-stream"},
                        {"trailing.", "application/octet-stream"},
                        {"x.unknown", "application/octet-stream"},
                        {"", "application/octet-stream"},
                        // A leading dot starts a name: ".png" is a file called ".png" with no extension.
                        {".bashrc", "application/octet-stream"},
                        {"dir/.png", "application/octet-stream"},
                    });
  EXPECT_EQ(file_kind_for_name(".png"), FileKind::document);
  // A dot in a folder's name is no extension of the file.
  EXPECT_EQ(file_kind_for_name("v1.2/readme"), FileKind::document);
  EXPECT_EQ(media_type_for_name("v1.2/readme"), nullptr);
  ASSERT_NE(media_type_for_name("song.MP3"), nullptr);
  EXPECT_EQ(media_type_for_name("song.MP3")->extension, "mp3");
}

// Each kind's name is pinned with every folded enum's in enum_names_test.cpp.

}  // namespace
}  // namespace sigil::text
