// The `viewImage` action (issue 13, item 6): the model looks at a picture. The picture goes into the
// model's next request as an OpenAI vision content part; the action is interrupting with
// `result_to: model`, so the model continues once it has seen it.
//
// What it promises:
// - A URL is fetched through the SSRF guard (guarded_fetch.h, with [fetch]'s allow_private, time-out and
//   redirects): private, loopback, link-local and metadata addresses are refused with the reason, at every
//   redirect. The answer's Content-Type must be image/*, and the bytes themselves a PNG, JPEG, WebP or GIF
//   picture (what vision models read), at most max_bytes.
// - Anything that is not an http(s) URL is a path in the file folders (send-file's sandbox: no links, no
//   `..`, regular files only), read from the one open descriptor. Without file folders it is an error.
// - The result is {"source", "mimeType", "bytes", "sha256", "modelImage": "data:<type>;base64,…"}: the
//   agent moves modelImage into the next request (agent.h) and out of the turn report. A replayed turn
//   reuses the stored result, so the model sees the same picture without a second fetch.
// - The model's line: `the picture <source> (PNG, 12 KiB) is attached to this message`. Failures are one
//   line saying why (refused address, HTTP status, not a picture, too large, no such file).
// - Not enabled ([model] vision = false, the default: a model without vision refuses image parts): not
//   taught, and a directive written anyway answers `viewImage: the model on this server cannot see
//   pictures ([model] vision)`.
#pragma once

#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "sigil/actions/fetch_page.h"
#include "sigil/actions/file_sandbox.h"
#include "sigil/actions/result.h"
#include "sigil/exec/handler.h"

namespace sigil::actions {

// The result key the agent takes a picture for the model from.
inline constexpr std::string_view kModelImageKey = "modelImage";

struct ViewImageConfig {
  bool enabled = false;
  FetchConfig fetch;  // the guard's settings; its `enabled` does not matter here
  std::size_t max_bytes = std::size_t{5} << 20;
  std::shared_ptr<const FileSandbox> files;  // send-file's folders; null: paths are refused
};

struct ViewedImage {
  std::string source;  // the final URL, or the path as found in the folders
  std::string bytes;
  std::string mime_type;
};

// One picture, blocking. The error is the model's line without the "viewImage: " prefix.
Result<ViewedImage> view_image(const ViewImageConfig& config, net::HttpClient& http, std::string_view where,
                               const std::stop_token& stop = {});

void add_view_image_handlers(exec::HandlerTable& table, const ViewImageConfig& config);

}  // namespace sigil::actions
