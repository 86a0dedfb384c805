// The `createAIImage` action (issue 13, item 6): a picture from the model server's OpenAI-compatible images
// endpoint, shown in the chat where the directive stood.
//
// What it promises:
// - One request, `POST {base_url}/images/generations` with {"model", "prompt", "n": 1, "size",
//   "response_format": "b64_json"} (GPT image models always answer base64 and refuse the parameter, so it
//   is left out for a model named gpt-image-*), `Authorization: Bearer <api_key>` when there is a key. It
//   is never sent twice: a connection lost before the answer is an error, not a second (paid) picture.
// - The answer's `data[0].b64_json` is decoded strictly (text/base64.h) and must be a PNG, JPEG, GIF,
//   WebP or BMP picture by its own bytes, at most max_image_bytes; the delivery is a File of kind image
//   with that type, named `image-<first 12 hex digits of its SHA-256>.<ext>`, its bytes in memory.
// - The model's line says what was shown: `showed a 1024x1024 picture (PNG, 1.2 MiB) for "a red fox"`;
//   the result is {"prompt", "model", "size", "mimeType", "bytes", "sha256", "revisedPrompt"?}. The
//   executor's exactly-once key keeps that result: a replayed turn neither asks for nor shows the picture
//   again.
// - Failures are one line saying what to do: no image model configured, an unknown size, the server's
//   refusal (its status and its own error text; 429 with Retry-After when given), no answer within
//   `timeout`, an answer without image data (or only a URL), data that is not base64 or not a picture, a
//   picture over the cap. An action time-out (the executor's stop) cancels the request.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "sigil/actions/result.h"
#include "sigil/exec/handler.h"
#include "sigil/net/http_client.h"

namespace sigil::actions {

struct ImageConfig {
  std::string base_url;            // the model server ("…/v1"), as [model] url
  std::string api_key;             // empty: no Authorization header
  std::string model;               // [model] image_model; empty: no image generation (not taught)
  std::string size = "1024x1024";  // when the directive names none
  std::chrono::milliseconds timeout{170'000};
  std::size_t max_image_bytes = std::size_t{20} << 20;
  std::shared_ptr<net::HttpClient> http;  // null: one of the actions' own, made at the first picture
};

bool image_generation_configured(const ImageConfig& config);

struct GeneratedImage {
  std::string bytes;
  std::string mime_type;  // by the bytes' signature
  std::string extension;  // "png", "jpg", ...
  std::string size;       // as asked
  std::string revised_prompt;
};

// The size the server is asked for: "WxH" and "auto" as written; aspect ratios 1:1, 16:9, 9:16, 4:3, 3:4,
// 3:2, 2:3 to the nearest size the model offers (dall-e-3: 1792x1024 and 1024x1792 for the wide and tall
// ones; others 1536x1024 and 1024x1536); empty: the configured default. Anything else is an error.
sigil::Result<std::string, std::string> image_size(std::string_view asked, const ImageConfig& config);

// One picture, blocking. The error is the model's line without the "createAIImage: " prefix.
sigil::Result<GeneratedImage, std::string> generate_image(const ImageConfig& config, net::HttpClient& http,
                                                          std::string_view prompt, std::string_view size,
                                                          const std::stop_token& stop = {});

// invalid_argument for a model without a base_url that is http(s).
Status<Error> add_create_image_handlers(exec::HandlerTable& table, const ImageConfig& config);

}  // namespace sigil::actions
