// A GET of a URL a model wrote (fetch-page, viewImage), through the SSRF guard (net/ssrf_guard.h).
//
// What it promises:
// - Only http(s) URLs the guard accepts: the host resolved once, every address checked, the request
//   connected to the checked address. Each redirect (301, 302, 303, 307, 308; at most
//   config.max_redirects) goes through the guard again, so a public URL cannot lead to a private one.
// - At most `max_bytes` of body are read (the answer says `truncated`); the whole fetch, redirects included,
//   ends within config.timeout, and `stop` cancels it.
// - Only a 2xx answer is returned; anything else is an error line naming the URL and what went wrong
//   (`refused http://10.0.0.5/: 10.0.0.5 is private (10.0.0.0/8)`, `… answered HTTP 404 Not Found`).
//   `what` names the thing fetched in the time-out line ("the page did not arrive within 20s").
#pragma once

#include <cstddef>
#include <stop_token>
#include <string>
#include <string_view>

#include "sigil/actions/fetch_page.h"
#include "sigil/actions/result.h"
#include "sigil/net/http_client.h"

namespace sigil::actions {

struct GuardedAnswer {
  std::string url;  // after redirects
  net::HttpResponseHead head;
  std::string body;
  bool truncated = false;
};

Result<GuardedAnswer> guarded_get(const FetchConfig& config, net::HttpClient& http, std::string_view url,
                                  std::string accept, std::size_t max_bytes, std::string_view what,
                                  const std::stop_token& stop = {});

// A Content-Type's media type without its parameters, lower case: "Image/PNG; x=1" -> "image/png".
std::string bare_media_type(std::string_view content_type);

}  // namespace sigil::actions
