// The web search providers behind the `search` action, one interface: Brave Search, Tavily and SearXNG.
//
// What each provider promises:
// - request() builds the provider's documented HTTP request for a query (no I/O): Brave
//   `GET {url}/res/v1/web/search?q=…&count=N` with `X-Subscription-Token`; Tavily `POST {url}/search` with a
//   JSON body {query, max_results, search_depth: "basic"} and `Authorization: Bearer`; SearXNG
//   `GET {url}/search?q=…&format=json`. The query is percent-encoded; the key goes only where the
//   provider wants it, never into the URL.
// - parse() reads a 2xx answer into hits: Brave `web.results[].title/url/description`, Tavily and SearXNG
//   `results[].title/url/content`; at most max_results, each with a URL. Snippets are plain text: tags
//   (Brave marks matches with <strong>) and character references are resolved, whitespace collapsed,
//   at most kMaxSnippetBytes. A body that is not the provider's JSON is an error; no results is not.
// - error_detail() finds the provider's own error text in an error answer (Brave `error.detail`, Tavily
//   `detail.error`, SearXNG and others `error` / `message`), one line, or "".
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/actions/result.h"
#include "sigil/net/http_message.h"

namespace sigil::actions {

inline constexpr std::size_t kMaxSnippetBytes = 300;

struct SearchHit {
  std::string title;
  std::string url;
  std::string snippet;
};

struct SearchProviderConfig {
  std::string provider;  // "brave" | "tavily" | "searxng"
  std::string api_key;   // Brave and Tavily need one
  std::string url;       // base URL; empty: the provider's public API (SearXNG has none: required)
  std::size_t max_results = 5;
};

class SearchProvider {
 public:
  virtual ~SearchProvider() = default;
  virtual std::string_view name() const = 0;  // "Brave Search", "Tavily", "SearXNG"
  virtual net::HttpRequest request(std::string_view query) const = 0;
  virtual Result<std::vector<SearchHit>> parse(std::string_view body) const = 0;
  // What to tell the model about an HTTP 401 or 403 from this provider.
  virtual std::string refused_hint() const = 0;
};

// invalid_argument for an unknown provider, a missing key or a missing or non-http(s) url.
Result<std::unique_ptr<SearchProvider>> make_search_provider(const SearchProviderConfig& config);

std::string error_detail(std::string_view body);

}  // namespace sigil::actions
