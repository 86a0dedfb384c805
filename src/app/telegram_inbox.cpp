#include "app/telegram_inbox.h"

#include <boost/json/object.hpp>
#include <fstream>
#include <system_error>

#include "sigil/deliver/format.h"
#include "sigil/log/log.h"
#include "sigil/text/ascii.h"
#include "sigil/text/media_types.h"

namespace sigil::app {
namespace {

namespace fs = std::filesystem;
namespace tg = channels::telegram;

// A name that is safe as one path component everywhere: no separators, no "..", nothing a shell or the
// sandbox's rules would trip on.
std::string safe_name(std::string_view name) {
  std::string out;
  for (const char c : name.substr(0, 100))
    out += text::ascii::is_alnum(c) || c == '.' || c == '_' || c == '-' ? c : '_';
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  return out;
}

std::string default_name(const tg::InboundFile& file, std::string_view file_path) {
  if (!file.name.empty()) return file.name;
  // Telegram's own path keeps the extension ("photos/file_3.jpg").
  const std::size_t dot = file_path.rfind('.');
  const std::string ext = dot != std::string_view::npos && file_path.find('/', dot) == std::string_view::npos
                              ? std::string(file_path.substr(dot))
                              : (file.kind == "photo"   ? ".jpg"
                                 : file.kind == "voice" ? ".ogg"
                                                        : ".bin");
  return file.kind + ext;
}

std::string not_kept(const tg::InboundFile& file, std::string_view why) {
  std::string line = "[the user sent a " + file.kind;
  if (!file.name.empty()) line += " " + file.name;
  if (file.size > 0) line += " (" + deliver::human_size(static_cast<std::uint64_t>(file.size)) + ")";
  return line + ": not downloaded: " + std::string(why) + "]";
}

}  // namespace

std::string keep_inbound_file(tg::BotApi& api, const fs::path& root, std::int64_t chat_id,
                              std::int64_t message_id, const tg::InboundFile& file, std::uint64_t max_bytes) {
  const std::string limit = "larger than the " + deliver::human_size(max_bytes) + " limit";
  if (root.empty()) return not_kept(file, "no folder to keep it in ([actions] file_roots)");
  if (file.size > 0 && static_cast<std::uint64_t>(file.size) > max_bytes) return not_kept(file, limit);
  const tg::ApiOutcome got = api.call("getFile", boost::json::object{{"file_id", file.file_id}});
  if (!got.ok() || !got.result.is_object()) return not_kept(file, "getFile: " + got.summary());
  const auto* path_value = got.result.as_object().if_contains("file_path");
  const std::string file_path =
      path_value != nullptr && path_value->is_string() ? std::string(path_value->as_string()) : std::string();
  if (file_path.empty()) return not_kept(file, "getFile gave no file_path");
  auto bytes = api.download(file_path, static_cast<std::size_t>(max_bytes));
  if (!bytes) return not_kept(file, bytes.error().starts_with("the file is larger") ? limit : bytes.error());

  const std::string relative = "telegram/" + std::to_string(chat_id) + "/" +
                               safe_name(std::to_string(message_id) + "-" + default_name(file, file_path));
  const fs::path target = root / relative;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  const fs::path partial = target.string() + ".part";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    out.close();
    if (!out) return not_kept(file, "cannot write " + relative);
  }
  fs::rename(partial, target, ec);
  if (ec) return not_kept(file, "cannot write " + relative + ": " + ec.message());
  if (log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, "telegram-file-kept", {}}
                   .with("chat", chat_id)
                   .with("path", relative)
                   .with("bytes", static_cast<std::int64_t>(bytes->size())));
  const std::string mime =
      !file.mime_type.empty() ? file.mime_type : std::string(text::mime_type_for_name(relative));
  return "[the user sent a " + file.kind + ": " + relative + " (" + mime + ", " +
         deliver::human_size(bytes->size()) + ")]";
}

}  // namespace sigil::app
