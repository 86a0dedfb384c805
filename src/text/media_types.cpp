#include "sigil/text/media_types.h"

#include <array>

#include "sigil/text/ascii.h"
#include "sigil/text/enum_names.h"

namespace sigil::text {
namespace {

constexpr std::string_view kUnknownType = "application/octet-stream";

// Kinds: spec 14's lists exactly. Types: IANA's, or the one in common use where none is registered (bmp,
// ico, mkv, avi).
constexpr std::array<MediaType, 40> kTable{{
    {"png", "image/png", FileKind::image},
    {"jpg", "image/jpeg", FileKind::image},
    {"jpeg", "image/jpeg", FileKind::image},
    {"gif", "image/gif", FileKind::image},
    {"webp", "image/webp", FileKind::image},
    {"bmp", "image/bmp", FileKind::image},
    {"tif", "image/tiff", FileKind::image},
    {"tiff", "image/tiff", FileKind::image},
    {"heic", "image/heic", FileKind::image},
    {"heif", "image/heif", FileKind::image},
    {"ogg", "audio/ogg", FileKind::audio},
    {"oga", "audio/ogg", FileKind::audio},
    {"opus", "audio/ogg; codecs=opus", FileKind::audio},
    {"mp3", "audio/mpeg", FileKind::audio},
    {"m4a", "audio/mp4", FileKind::audio},
    {"wav", "audio/wav", FileKind::audio},
    {"aac", "audio/aac", FileKind::audio},
    {"flac", "audio/flac", FileKind::audio},
    {"mp4", "video/mp4", FileKind::video},
    {"m4v", "video/mp4", FileKind::video},
    {"mov", "video/quicktime", FileKind::video},
    {"webm", "video/webm", FileKind::video},
    {"mkv", "video/x-matroska", FileKind::video},
    {"avi", "video/x-msvideo", FileKind::video},
    // Pictures spec 14 does not list (a vector drawing, an icon) go as documents.
    {"svg", "image/svg+xml", FileKind::document},
    {"ico", "image/x-icon", FileKind::document},
    {"pdf", "application/pdf", FileKind::document},
    {"zip", "application/zip", FileKind::document},
    {"json", "application/json", FileKind::document},
    {"jsonl", "application/jsonl", FileKind::document},
    {"txt", "text/plain", FileKind::document},
    {"md", "text/markdown", FileKind::document},
    {"csv", "text/csv", FileKind::document},
    {"html", "text/html", FileKind::document},
    {"htm", "text/html", FileKind::document},
    {"css", "text/css", FileKind::document},
    {"js", "text/javascript", FileKind::document},
    {"mjs", "text/javascript", FileKind::document},
    {"woff", "font/woff", FileKind::document},
    {"woff2", "font/woff2", FileKind::document},
}};

std::string_view extension_of(std::string_view name) noexcept {
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  return name.substr(dot + 1);
}

}  // namespace

namespace {
constexpr EnumNames<FileKind::video> kFileKindNames{{"auto", "image", "document", "audio", "voice", "video"},
                                                    "auto"};
}  // namespace

std::string_view to_string(FileKind kind) noexcept { return kFileKindNames.name(kind); }

std::span<const MediaType> media_types() noexcept { return kTable; }

const MediaType* media_type_for_name(std::string_view name) noexcept {
  const std::string_view ext = extension_of(name);
  if (ext.empty()) return nullptr;
  for (const MediaType& row : kTable) {
    if (ascii::iequals(row.extension, ext)) return &row;
  }
  return nullptr;
}

FileKind file_kind_for_name(std::string_view name) noexcept {
  const MediaType* row = media_type_for_name(name);
  return row != nullptr ? row->kind : FileKind::document;
}

std::string_view mime_type_for_name(std::string_view name) noexcept {
  const MediaType* row = media_type_for_name(name);
  return row != nullptr ? row->mime : kUnknownType;
}

std::span<const FileKindSpelling> file_kind_spellings() noexcept {
  static constexpr FileKindSpelling kSpellings[] = {
      {"auto", FileKind::automatic},    {"image", FileKind::image},  {"photo", FileKind::image},
      {"document", FileKind::document}, {"doc", FileKind::document}, {"file", FileKind::document},
      {"audio", FileKind::audio},       {"voice", FileKind::voice},  {"video", FileKind::video},
  };
  return kSpellings;
}

std::optional<FileKind> parse_file_kind(std::string_view name) noexcept {
  for (const FileKindSpelling& s : file_kind_spellings())
    if (ascii::iequals(name, s.written)) return s.kind;
  return std::nullopt;
}

const MediaType* sniff_image(std::string_view bytes) noexcept {
  const auto starts = [bytes](std::string_view magic) { return bytes.substr(0, magic.size()) == magic; };
  std::string_view extension;
  if (starts("\x89PNG\r\n\x1a\n"))
    extension = "png";
  else if (starts("\xff\xd8\xff"))
    extension = "jpg";
  else if (starts("GIF87a") || starts("GIF89a"))
    extension = "gif";
  else if (starts("RIFF") && bytes.size() >= 12 && bytes.substr(8, 4) == "WEBP")
    extension = "webp";
  else if (starts("BM") && bytes.size() >= 26)
    extension = "bmp";
  else
    return nullptr;
  for (const MediaType& row : kTable)
    if (row.extension == extension) return &row;
  return nullptr;
}

}  // namespace sigil::text
