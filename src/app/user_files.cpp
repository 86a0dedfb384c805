#include "app/user_files.h"

#include <fstream>
#include <system_error>
#include <utility>

#include "sigil/deliver/format.h"
#include "sigil/log/log.h"
#include "sigil/text/ascii.h"
#include "sigil/text/media_types.h"

namespace sigil::app {

namespace fs = std::filesystem;

namespace {

// "[the user sent a photo", "[the user sent an image".
std::string sent(std::string_view kind) {
  const bool vowel = !kind.empty() && std::string_view("aeiou").find(kind.front()) != std::string_view::npos;
  return std::string(vowel ? "[the user sent an " : "[the user sent a ") + std::string(kind);
}

}  // namespace

std::string safe_file_name(std::string_view name) {
  // No separators, no "..", nothing a shell or the sandbox's rules would trip on.
  std::string out;
  for (const char c : name.substr(0, 100))
    out += text::ascii::is_alnum(c) || c == '.' || c == '_' || c == '-' ? c : '_';
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  return out;
}

std::string not_kept_line(const UserFile& file, std::string_view why) {
  std::string line = sent(file.kind);
  if (!file.name.empty()) line += " " + file.name;
  if (file.size > 0) line += " (" + deliver::human_size(static_cast<std::uint64_t>(file.size)) + ")";
  return line + ": not downloaded: " + std::string(why) + "]";
}

std::string over_limit(std::uint64_t max_bytes) {
  return "larger than the " + deliver::human_size(max_bytes) + " limit";
}

std::string download_refused(const net::DownloadError& error, std::uint64_t max_bytes) {
  return error.too_large ? over_limit(max_bytes) : error.message;
}

std::string keep_user_file(const fs::path& root, const std::string& relative, std::string_view bytes,
                           const UserFile& file, std::string_view event, std::string_view chat) {
  const fs::path target = root / relative;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  const fs::path partial = target.string() + ".part";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return not_kept_line(file, "cannot write " + relative);
  }
  fs::rename(partial, target, ec);
  if (ec) return not_kept_line(file, "cannot write " + relative + ": " + ec.message());
  if (log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, std::string(event), {}}
                   .with("chat", std::string(chat))
                   .with("path", relative)
                   .with("bytes", static_cast<std::int64_t>(bytes.size())));
  const std::string mime =
      !file.mime_type.empty() ? file.mime_type : std::string(text::mime_type_for_name(relative));
  return sent(file.kind) + ": " + relative + " (" + mime + ", " + deliver::human_size(bytes.size()) + ")]";
}

UserFile typed_user_file(std::string name, std::string_view content_type, std::int64_t size) {
  const std::string_view type = content_type;
  return UserFile{type.starts_with("image/")   ? "image"
                  : type.starts_with("audio/") ? "audio file"
                  : type.starts_with("video/") ? "video"
                                               : "file",
                  std::move(name), std::string(type.substr(0, type.find(';'))), size};
}

std::string message_file_lines(const std::vector<MessageFile>& files, std::string_view channel,
                               const std::string& chat, const std::string& message_id,
                               const std::filesystem::path& root, std::uint64_t max_bytes,
                               const FileDownload& download) {
  constexpr std::size_t kMostFiles = 10;
  std::string lines;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const UserFile& about = files[i].about;
    std::string line;
    if (i >= kMostFiles) {
      line = not_kept_line(about, "more than " + std::to_string(kMostFiles) + " files in one message");
    } else if (root.empty()) {
      line = not_kept_line(about, "no folder to keep it in ([actions] file_roots)");
    } else if (about.size > 0 && static_cast<std::uint64_t>(about.size) > max_bytes) {
      line = not_kept_line(about, over_limit(max_bytes));
    } else if (auto bytes = download(files[i].url, max_bytes); !bytes) {
      line = not_kept_line(about, download_refused(bytes.error(), max_bytes));
    } else {
      const std::string name = message_id + (files.size() > 1 ? "-" + std::to_string(i + 1) : "") + "-" +
                               (about.name.empty() ? "file" : about.name);
      line = keep_user_file(root, std::string(channel) + "/" + chat + "/" + safe_file_name(name), *bytes,
                            about, std::string(channel) + "-file-kept", chat);
    }
    lines += (lines.empty() ? "" : "\n") + line;
  }
  return lines;
}

}  // namespace sigil::app
