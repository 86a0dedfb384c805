#include "server/mime_types.h"

#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace sigil::server {

std::string_view mime_for_name(std::string_view name) {
  const auto slash = name.find_last_of('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  const auto dot = name.find_last_of('.');
  if (dot == std::string_view::npos) return "application/octet-stream";
  std::string ext(name.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 27> kTypes{{
      {"html", "text/html; charset=utf-8"},
      {"htm", "text/html; charset=utf-8"},
      {"css", "text/css; charset=utf-8"},
      {"js", "text/javascript; charset=utf-8"},
      {"mjs", "text/javascript; charset=utf-8"},
      {"json", "application/json"},
      {"jsonl", "application/jsonl"},
      {"txt", "text/plain; charset=utf-8"},
      {"md", "text/markdown; charset=utf-8"},
      {"csv", "text/csv; charset=utf-8"},
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
      {"opus", "audio/ogg; codecs=opus"},
      {"mp3", "audio/mpeg"},
      {"wav", "audio/wav"},
      {"mp4", "video/mp4"},
      {"webm", "video/webm"},
      {"pdf", "application/pdf"},
      {"zip", "application/zip"},
  }};
  for (const auto& [e, type] : kTypes)
    if (e == ext) return type;
  return "application/octet-stream";
}

}  // namespace sigil::server
