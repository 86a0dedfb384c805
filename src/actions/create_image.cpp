#include "sigil/actions/create_image.h"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <utility>
#include <variant>

#include "actions/json_fields.h"
#include "actions/web_client.h"
#include "sigil/actions/search_providers.h"
#include "sigil/net/retry_after.h"
#include "sigil/net/url.h"
#include "sigil/store/sha256.h"
#include "sigil/text/ascii.h"
#include "sigil/text/base64.h"
#include "sigil/text/diagnostic_text.h"
#include "sigil/text/media_types.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
namespace ascii = text::ascii;

bool is_dimensions(std::string_view s) {
  const std::size_t x = s.find('x');
  if (x == 0 || x == std::string_view::npos || x + 1 == s.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != x && !ascii::is_digit(s[i])) return false;
  return s.size() <= 11;
}

}  // namespace

bool image_generation_configured(const ImageConfig& config) { return !config.model.empty(); }

sigil::Result<std::string, std::string> image_size(std::string_view asked, const ImageConfig& config) {
  const std::string size = ascii::to_lower(ascii::trim(asked));
  if (size.empty()) return config.size;
  if (size == "auto" || is_dimensions(size)) return size;
  const bool dalle3 = ascii::istarts_with(config.model, "dall-e-3");
  if (size == "1:1") return std::string("1024x1024");
  if (size == "16:9" || size == "4:3" || size == "3:2")
    return std::string(dalle3 ? "1792x1024" : "1536x1024");
  if (size == "9:16" || size == "3:4" || size == "2:3")
    return std::string(dalle3 ? "1024x1792" : "1024x1536");
  return Failure{"size \"" + text::one_line(std::string(asked)) +
                 "\" is not a size: write WIDTHxHEIGHT (1024x1024, 1536x1024, 1024x1536) or a ratio "
                 "(1:1, 16:9, 9:16, 4:3)"};
}

sigil::Result<GeneratedImage, std::string> generate_image(const ImageConfig& config, net::HttpClient& http,
                                                          std::string_view prompt, std::string_view size,
                                                          const std::stop_token& stop) {
  json::object body{{"model", config.model}, {"prompt", prompt}, {"n", 1}, {"size", size}};
  // GPT image models answer base64 only, and refuse the parameter that asks for it.
  if (!ascii::istarts_with(config.model, "gpt-image")) body["response_format"] = "b64_json";
  net::HttpRequest request;
  request.method = "POST";
  request.url = net::without_trailing_slashes(config.base_url) + "/images/generations";
  request.headers.push_back({"Content-Type", "application/json"});
  if (!config.api_key.empty()) request.headers.push_back({"Authorization", "Bearer " + config.api_key});
  request.body = json::serialize(body);
  request.timeouts.deadline = std::chrono::steady_clock::now() + config.timeout;
  request.resend_on_stale_connection = false;  // a second request is a second (paid) picture
  // Base64 is 4 bytes for 3, and the JSON around it is small.
  const std::size_t max_answer = config.max_image_bytes / 3 * 4 + 64 * 1024;
  const net::HttpResult answer = fetch_and_wait(http, std::move(request), max_answer, stop);

  const std::string who = "the image server (" + config.model + ")";
  if (answer.error) {
    if (answer.error->kind == net::NetErrorKind::deadline)
      return Failure{who + " did not answer within " + text::format_duration(config.timeout)};
    if (answer.error->kind == net::NetErrorKind::cancelled)
      return Failure{"stopped while waiting for " + who};
    return Failure{"cannot reach " + who + ": " + answer.error->message};
  }
  if (answer.truncated)
    return Failure{"the picture is larger than " + text::format_bytes(config.max_image_bytes)};
  const int status = answer.head.status;
  if (status < 200 || status > 299) {
    std::string message = who + " answered HTTP " + std::to_string(status);
    if (const std::string detail = error_detail(answer.body); !detail.empty()) message += ": " + detail;
    if (status == 429) {
      if (const std::string* after = answer.head.find("Retry-After")) {
        if (auto wait = net::parse_retry_after(*after, std::chrono::system_clock::now()))
          message += "; try again in " + std::to_string(wait->count()) + "s";
      }
    }
    return Failure{std::move(message)};
  }

  boost::system::error_code ec;
  const json::value parsed = json::parse(answer.body, ec);
  const json::value* first = nullptr;
  if (!ec && parsed.is_object()) {
    if (const auto* data = parsed.as_object().if_contains("data");
        data != nullptr && data->is_array() && !data->as_array().empty() && data->as_array()[0].is_object())
      first = &data->as_array()[0];
  }
  if (first == nullptr) return Failure{who + " answered without a picture (no \"data\" list)"};
  const json::object& item = first->as_object();
  const auto* b64 = item.if_contains("b64_json");
  if (b64 == nullptr || !b64->is_string()) {
    if (item.contains("url")) return Failure{who + " answered a URL, not the picture's data (b64_json)"};
    return Failure{who + " answered without the picture's data (b64_json)"};
  }
  auto bytes = text::base64_decode(b64->get_string());
  if (!bytes) return Failure{who + " sent picture data that is not base64"};
  if (bytes->size() > config.max_image_bytes)
    return Failure{"the picture is larger than " + text::format_bytes(config.max_image_bytes)};
  const text::MediaType* type = text::sniff_image(*bytes);
  if (type == nullptr) return Failure{who + " sent data that is not a PNG, JPEG, GIF, WebP or BMP picture"};

  GeneratedImage image;
  image.bytes = std::move(*bytes);
  image.mime_type = std::string(type->mime);
  image.extension = std::string(type->extension);
  image.size = std::string(size);
  if (const auto* revised = item.if_contains("revised_prompt"); revised != nullptr && revised->is_string())
    image.revised_prompt = std::string(revised->get_string());
  return image;
}

namespace {

class CreateImageHandler final : public exec::ActionHandler {
 public:
  explicit CreateImageHandler(ImageConfig config) : config_(std::move(config)), http_(config_.http) {}

  exec::HandlerResult run(const exec::Directive& d, exec::ActionContext& ctx) override {
    const auto string_arg = [&d](std::string_view name) {
      return std::string(ascii::trim(string_at(d.args, name)));
    };
    const std::string prompt = string_arg("prompt");
    if (prompt.empty()) return exec::HandlerResult::error("createAIImage: the prompt is empty");
    auto size = image_size(string_arg("size"), config_);
    if (!size) return exec::HandlerResult::error("createAIImage: " + size.error());
    if (ctx.stop_requested()) return exec::HandlerResult::error("createAIImage: stopped before it ran");
    auto image = generate_image(config_, http_.get(), prompt, *size, ctx.stop_token());
    if (!image) return exec::HandlerResult::error("createAIImage: " + image.error());

    const std::string digest = store::sha256_hex(image->bytes);
    const std::string name = "image-" + digest.substr(0, 12) + "." + image->extension;
    const std::size_t bytes = image->bytes.size();
    json::object result{{"prompt", prompt},    {"model", config_.model},
                        {"size", image->size}, {"mimeType", image->mime_type},
                        {"bytes", bytes},      {"sha256", digest}};
    if (!image->revised_prompt.empty()) result["revisedPrompt"] = image->revised_prompt;

    exec::Delivery delivery;
    delivery.op = exec::Delivery::Op::File;
    delivery.path = name;
    delivery.kind = "image";
    delivery.sha256 = digest;
    delivery.payload = deliver::make_bytes_payload(std::move(image->bytes), name, image->mime_type);

    std::string message = "showed a " + image->size + " picture (" + ascii::to_upper(image->extension) +
                          ", " + text::format_bytes(bytes) + ") for \"" + text::one_line(prompt) + "\"";
    auto r = exec::HandlerResult::ok(std::move(message), std::move(result));
    r.deliveries.push_back(std::move(delivery));
    return r;
  }

 private:
  ImageConfig config_;
  SharedHttpClient http_;
};

}  // namespace

Status<Error> add_create_image_handlers(exec::HandlerTable& table, const ImageConfig& config) {
  if (!image_generation_configured(config)) {
    table.add("createAIImage", [](const exec::Directive&, exec::ActionContext&) {
      return exec::HandlerResult::error(
          "createAIImage: no image model is configured on this server ([images] model)");
    });
    return {};
  }
  auto parsed = net::parse_url(config.base_url);
  const auto* url = std::get_if<net::Url>(&parsed);
  if (url == nullptr || (url->scheme != "http" && url->scheme != "https"))
    return make_error(
        ErrorCode::invalid_argument,
        "[images] model needs [images] url or [model] url, an http(s):// address of an images server");
  table.add("createAIImage", std::make_shared<CreateImageHandler>(config));
  return {};
}

}  // namespace sigil::actions
