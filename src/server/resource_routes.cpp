#include "server/resource_routes.h"

#include "server/content_disposition.h"
#include "server/mime_types.h"
#include "server/published_page.h"
#include "server/query_string.h"
#include "sigil/embed/files.h"
#include "sigil/net/url.h"

namespace sigil::server {

namespace {

constexpr std::string_view kWebCsp =
    "default-src 'self'; media-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

}  // namespace

PlainResponse page_response(store::Store& store, const std::string& slug) {
  auto page = store.get_page(slug);
  if (!page.ok()) return json_error(500, "store: " + page.error());
  if (!page->has_value()) return text_response(404, "no such page");
  const store::Page& p = **page;
  PlainResponse res = text_response(200, published_page_html(p.html), "text/html; charset=utf-8");
  res.with("Content-Security-Policy", std::string(published_page_csp(p.csp_allows_scripts)));
  res.with("X-Content-Type-Options", "nosniff");
  // A page is unguessable but public: never cached by shared proxies beyond its owner's control.
  res.with("Cache-Control", "no-store");
  return res;
}

PlainResponse asset_response(const std::string& path) {
  // web/ may keep its assets at the top or under web/assets/: both are served as /assets/<file>.
  const embed::File* file = embed::find(embed::web_assets(), path);
  if (file == nullptr && path != "index.html") file = embed::find(embed::web_assets(), "assets/" + path);
  if (file == nullptr) {
    return text_response(404, path == "index.html"
                                  ? "the web page is not built into this binary (web/ was empty)"
                                  : "no such file");
  }
  PlainResponse res = text_response(200, std::string(file->data), mime_for_name(file->path));
  res.with("Cache-Control", "no-cache");
  res.with("Content-Security-Policy", std::string(kWebCsp));
  res.with("X-Content-Type-Options", "nosniff");
  res.with("Referrer-Policy", "no-referrer");
  return res;
}

MediaResponse media_response(const MediaStore& media, std::string_view param) {
  const auto slash = param.find('/');
  const std::string hash(param.substr(0, slash));
  if (!MediaStore::valid_hash(hash))
    return {json_error(400, "a media URL is /media/<sha256>/<name>"), std::nullopt};
  std::string url_name;
  if (slash != std::string_view::npos) {
    auto decoded = net::percent_decode(param.substr(slash + 1), false);
    if (!decoded || decoded->find('/') != std::string::npos)
      return {json_error(404, "no such media"), std::nullopt};
    url_name = std::move(*decoded);
  }
  auto found = media.find(hash, url_name);
  if (!found) return {json_error(404, "no such media"), std::nullopt};
  const std::string name = !found->info.name.empty() ? found->info.name : url_name.empty() ? hash : url_name;
  MediaResponse out;
  PlainResponse& res = out.response;
  res.content_type = found->info.mime.empty() ? mime_for_name(name) : found->info.mime;
  res.with("X-Content-Type-Options", "nosniff");
  res.with("Content-Security-Policy", "sandbox");
  res.with("Content-Disposition", content_disposition(found->info.inline_disposition, name));
  // Content-addressed: the bytes behind a hash never change.
  res.with("Cache-Control", "private, max-age=31536000, immutable");
  if (found->bytes) {
    res.body = *found->bytes;
  } else {
    out.file = found->file;
  }
  return out;
}

}  // namespace sigil::server
