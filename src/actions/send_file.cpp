#include "sigil/actions/send_file.h"

#include <string>
#include <utility>

#include "actions/json_fields.h"
#include "sigil/text/media_types.h"

namespace sigil::actions {
namespace {

class FilePayload final : public exec::Payload {
 public:
  FilePayload(OpenedFile file, std::string mime) : file_(std::move(file)), mime_(std::move(mime)) {}
  std::uint64_t size() const override { return file_.size(); }
  std::string name() const override { return file_.name(); }
  std::string mime_type() const override { return mime_; }
  std::int64_t read_at(std::uint64_t offset, std::span<char> out) const override {
    auto n = file_.read_at(offset, out);
    return n ? static_cast<std::int64_t>(*n) : -1;
  }

 private:
  OpenedFile file_;
  std::string mime_;
};

// Quotes a model-written value for a one-line message: at most 120 bytes, control bytes shown as '?'.
std::string quote_value(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 120)) out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
  if (s.size() > 120) out += "...";
  return out + "\"";
}

exec::HandlerResult send_file(const FilesConfig& config, const exec::Directive& d) {
  const std::string path = string_at(d.args, "path");
  if (!config.sandbox) return exec::HandlerResult::error("send-file: no folder is configured for files");
  const std::string channel = string_at(d.args, "channel");
  const std::string chat = string_at(d.args, "chat");
  if (!channel.empty() && find_allowed_target(config.allowed_targets, channel, chat) == nullptr)
    return exec::HandlerResult::error("send-file: " + channel + ":" + chat + " is not an allowed target");

  auto opened = config.sandbox->open(path);
  if (!opened)
    return exec::HandlerResult::error("send-file: " + quote_value(path) + ": " + opened.error().message);
  auto digest = opened->sha256();
  if (!digest)
    return exec::HandlerResult::error("send-file: " + quote_value(path) + ": " + digest.error().message);

  std::optional<FileKind> asked;
  if (const auto* k = d.args.if_contains("kind"); k != nullptr && k->is_string())
    asked = parse_file_kind(k->get_string());
  const FileKind kind = kind_for(opened->relative_path(), asked);

  std::string note;
  const auto* cleanup = d.args.if_contains("cleanup");
  if (cleanup != nullptr && cleanup->is_bool() && cleanup->get_bool()) {
    // Removed now: what is sent is the open descriptor, which outlives the name.
    auto removed = config.sandbox->remove(*opened, config.allow_cleanup);
    note = removed ? "; deleted after opening" : "; kept (" + removed.error().message + ")";
  }

  exec::Delivery delivery;
  delivery.op = exec::Delivery::Op::File;
  delivery.path = opened->relative_path();
  delivery.kind = std::string(to_string(kind));
  delivery.caption = string_at(d.args, "caption");
  delivery.sha256 = *digest;
  delivery.channel = channel;
  delivery.chat = chat;
  const std::uint64_t size = opened->size();
  const std::string shown = opened->relative_path();
  delivery.payload = make_file_payload(std::move(*opened), std::string(text::mime_type_for_name(shown)));

  boost::json::object result{{"path", shown}, {"kind", delivery.kind}, {"bytes", size}, {"sha256", *digest}};
  auto r = exec::HandlerResult::ok(
      "sent " + shown + " (" + delivery.kind + ", " + std::to_string(size) + " bytes" + note + ")",
      std::move(result));
  r.deliveries.push_back(std::move(delivery));
  return r;
}

}  // namespace

std::shared_ptr<const exec::Payload> make_file_payload(OpenedFile file, std::string mime_type) {
  return std::make_shared<FilePayload>(std::move(file), std::move(mime_type));
}

void add_send_file_handlers(exec::HandlerTable& table, FilesConfig config) {
  auto shared = std::make_shared<const FilesConfig>(std::move(config));
  table.add("send-file",
            [shared](const exec::Directive& d, exec::ActionContext&) { return send_file(*shared, d); });
}

}  // namespace sigil::actions
