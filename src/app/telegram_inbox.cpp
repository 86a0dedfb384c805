#include "app/telegram_inbox.h"

#include <boost/json/object.hpp>

#include "app/user_files.h"

namespace sigil::app {
namespace {

namespace fs = std::filesystem;
namespace tg = channels::telegram;

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

}  // namespace

std::string keep_inbound_file(tg::BotApi& api, const fs::path& root, std::int64_t chat_id,
                              std::int64_t message_id, const tg::InboundFile& file, std::uint64_t max_bytes) {
  const UserFile about{file.kind, file.name, file.mime_type, file.size};
  if (root.empty()) return not_kept_line(about, "no folder to keep it in ([actions] file_roots)");
  if (file.size > 0 && static_cast<std::uint64_t>(file.size) > max_bytes)
    return not_kept_line(about, over_limit(max_bytes));
  const tg::ApiOutcome got = api.call("getFile", boost::json::object{{"file_id", file.file_id}});
  if (!got.ok() || !got.result.is_object()) return not_kept_line(about, "getFile: " + got.summary());
  const auto* path_value = got.result.as_object().if_contains("file_path");
  const std::string file_path =
      path_value != nullptr && path_value->is_string() ? std::string(path_value->as_string()) : std::string();
  if (file_path.empty()) return not_kept_line(about, "getFile gave no file_path");
  auto bytes = api.download(file_path, static_cast<std::size_t>(max_bytes));
  if (!bytes) return not_kept_line(about, download_refused(bytes.error(), max_bytes));
  const std::string relative =
      "telegram/" + std::to_string(chat_id) + "/" +
      safe_file_name(std::to_string(message_id) + "-" + default_name(file, file_path));
  return keep_user_file(root, relative, *bytes, about, "telegram-file-kept", std::to_string(chat_id));
}

}  // namespace sigil::app
