// The answers of the gateway's public resources, without sockets: published pages, the embedded web page
// and its assets, media downloads. Each takes the route's param (server/route.h) and returns the whole
// answer with its headers (tests/server/resource_routes_test.cpp); the HTTP session only sends it.
//
// What they promise:
// - page_response(): the page's HTML as served (published_page_html) with the sandboxing
//   Content-Security-Policy, nosniff and no-store; 404 for an unknown slug, 500 when the store fails.
// - asset_response(): an embedded file of web/, looked up at the top and under assets/, with the web page's
//   own CSP (scripts and connections to the gateway only, no framing), nosniff, no-referrer, no-cache.
// - media_response(): only a valid 64-hex hash ever reaches the media store; the URL's name is decoded and
//   may not hold a '/'. The answer carries the link's own name and type (the first delivery's), nosniff, a
//   `sandbox` CSP (an HTML or SVG file cannot run in the gateway's origin) and an immutable cache lifetime
//   (content-addressed bytes never change).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/media_store.h"
#include "server/plain_response.h"
#include "sigil/store/store.h"

namespace sigil::server {

PlainResponse page_response(store::Store& store, const std::string& slug);

// `path`: "index.html" for / (then a missing file means web/ was empty at build time).
PlainResponse asset_response(const std::string& path);

struct MediaResponse {
  // An error, or status 200 with the download's headers and, for bytes kept in memory, the body.
  PlainResponse response;
  // Set (status 200, the bytes are not in memory): the bytes are this file's; the session streams it, and
  // answers 404 when it cannot open it.
  std::optional<std::string> file;
};
// `param`: "<sha256>/<percent-encoded name>" or "<sha256>".
MediaResponse media_response(const MediaStore& media, std::string_view param);

}  // namespace sigil::server
