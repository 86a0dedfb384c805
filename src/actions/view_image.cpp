#include "sigil/actions/view_image.h"

#include <boost/json/object.hpp>
#include <utility>

#include "actions/web_client.h"
#include "sigil/actions/guarded_fetch.h"
#include "sigil/store/sha256.h"
#include "sigil/text/ascii.h"
#include "sigil/text/base64.h"
#include "sigil/text/diagnostic_text.h"
#include "sigil/text/media_types.h"

namespace sigil::actions {
namespace {

namespace ascii = text::ascii;

// What OpenAI-compatible vision models read (BMP and TIFF are refused by them).
const text::MediaType* viewable(std::string_view bytes) {
  const text::MediaType* type = text::sniff_image(bytes);
  if (type == nullptr || type->extension == "bmp") return nullptr;
  return type;
}

Error not_a_picture(std::string_view source) {
  return make_error(ErrorCode::invalid_argument,
                    text::one_line(std::string(source)) + " is not a PNG, JPEG, WebP or GIF picture");
}

Error too_large(std::string_view source, std::size_t max_bytes) {
  return make_error(ErrorCode::too_large, text::one_line(std::string(source)) + " is larger than " +
                                              text::format_bytes(max_bytes) + ", the limit for pictures");
}

Result<ViewedImage> from_url(const ViewImageConfig& config, net::HttpClient& http, std::string_view url,
                             const std::stop_token& stop) {
  FetchConfig fetch = config.fetch;
  fetch.enabled = true;
  auto answer = guarded_get(fetch, http, url, "image/png,image/jpeg,image/webp,image/gif,image/*;q=0.8",
                            config.max_bytes + 1, "the picture", stop);
  if (!answer) return std::move(answer).error();
  const std::string* header = answer->head.find("Content-Type");
  const std::string type = bare_media_type(header != nullptr ? *header : std::string());
  if (!ascii::istarts_with(type, "image/"))
    return make_error(
        ErrorCode::permission_denied,
        text::one_line(answer->url) + " is " +
            (type.empty() ? std::string("of no stated type (no Content-Type)") : "of type " + type) +
            ": only pictures (image/*) are viewed");
  if (answer->truncated || answer->body.size() > config.max_bytes)
    return too_large(answer->url, config.max_bytes);
  const text::MediaType* sniffed = viewable(answer->body);
  if (sniffed == nullptr) return not_a_picture(answer->url);
  return ViewedImage{std::move(answer->url), std::move(answer->body), std::string(sniffed->mime)};
}

Result<ViewedImage> from_file(const ViewImageConfig& config, std::string_view path) {
  if (!config.files)
    return make_error(ErrorCode::invalid_argument,
                      "\"" + text::one_line(std::string(path)) +
                          "\" is not an http(s) URL, and no folder is configured for files");
  auto opened = config.files->open(path);
  if (!opened)
    return make_error(opened.error().code,
                      "\"" + text::one_line(std::string(path)) + "\": " + opened.error().message);
  const std::string shown = opened->relative_path();
  if (opened->size() > config.max_bytes) return too_large(shown, config.max_bytes);
  std::string bytes(static_cast<std::size_t>(opened->size()), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    auto n = opened->read_at(got, std::span<char>(bytes.data() + got, bytes.size() - got));
    if (!n) return make_error(n.error().code, shown + ": " + n.error().message);
    if (*n == 0) break;
    got += *n;
  }
  bytes.resize(got);
  const text::MediaType* sniffed = viewable(bytes);
  if (sniffed == nullptr) return not_a_picture(shown);
  return ViewedImage{shown, std::move(bytes), std::string(sniffed->mime)};
}

class ViewImageHandler final : public exec::ActionHandler {
 public:
  explicit ViewImageHandler(ViewImageConfig config) : config_(std::move(config)), http_(config_.fetch.http) {}

  exec::HandlerResult run(const exec::Directive& d, exec::ActionContext& ctx) override {
    const auto* arg = d.args.if_contains("url");
    const std::string where(arg != nullptr && arg->is_string() ? ascii::trim(arg->get_string()) : "");
    if (where.empty()) return exec::HandlerResult::error("viewImage: no picture was named (a URL or a path)");
    if (ctx.stop_requested()) return exec::HandlerResult::error("viewImage: stopped before it ran");
    auto image = view_image(config_, http_.get(), where, ctx.stop_token());
    if (!image) return exec::HandlerResult::error("viewImage: " + image.error().message);

    const std::size_t bytes = image->bytes.size();
    const std::string kind = ascii::to_upper(image->mime_type.substr(image->mime_type.find('/') + 1));
    std::string message = "the picture " + text::one_line(image->source) + " (" + kind + ", " +
                          text::format_bytes(bytes) + ") is attached to this message";
    boost::json::object result{{"source", image->source},
                               {"mimeType", image->mime_type},
                               {"bytes", bytes},
                               {"sha256", store::sha256_hex(image->bytes)}};
    result[kModelImageKey] = "data:" + image->mime_type + ";base64," + text::base64_encode(image->bytes);
    return exec::HandlerResult::ok(std::move(message), std::move(result));
  }

 private:
  ViewImageConfig config_;
  SharedHttpClient http_;
};

}  // namespace

Result<ViewedImage> view_image(const ViewImageConfig& config, net::HttpClient& http, std::string_view where,
                               const std::stop_token& stop) {
  where = ascii::trim(where);
  if (ascii::istarts_with(where, "http://") || ascii::istarts_with(where, "https://"))
    return from_url(config, http, where, stop);
  // Another scheme (data:, file:, ftp://) is neither a URL we fetch nor a path in the folders.
  const std::size_t colon = where.find(':');
  if (colon != std::string_view::npos && colon > 1 && where.find('/') > colon)
    return make_error(ErrorCode::invalid_argument,
                      "\"" + text::one_line(std::string(where.substr(0, 120))) +
                          "\": only http(s) URLs and paths in the file folders are viewed");
  return from_file(config, where);
}

void add_view_image_handlers(exec::HandlerTable& table, const ViewImageConfig& config) {
  if (!config.enabled) {
    table.add("viewImage", [](const exec::Directive&, exec::ActionContext&) {
      return exec::HandlerResult::error(
          "viewImage: the model on this server cannot see pictures ([model] vision)");
    });
    return;
  }
  table.add("viewImage", std::make_shared<ViewImageHandler>(config));
}

}  // namespace sigil::actions
