#include "sigil/actions/search_providers.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <utility>

#include "actions/collapse_runs.h"
#include "actions/json_fields.h"
#include "sigil/net/url.h"
#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
namespace ascii = text::ascii;

std::string base_url(const SearchProviderConfig& config, std::string_view fallback) {
  return net::without_trailing_slashes(config.url.empty() ? fallback : std::string_view(config.url));
}

// Plain, short text from what a provider sends: tags out, references decoded, whitespace collapsed.
std::string plain(std::string_view in, std::size_t max_bytes) {
  std::string untagged;
  bool in_tag = false;
  for (char c : in) {
    if (c == '<') {
      in_tag = true;
    } else if (c == '>' && in_tag) {
      in_tag = false;
    } else if (!in_tag) {
      untagged += c;
    }
  }
  std::string out = collapse_runs(text::decode_char_refs(untagged), ascii::is_space);
  if (out.size() > max_bytes) {
    out.resize(text::safe_cut(out, max_bytes - 3));
    out += "…";
  }
  return out;
}

Result<json::value> parse_json(std::string_view body, std::string_view provider) {
  json::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object())
    return make_error(ErrorCode::tool_failed, "the answer from " + std::string(provider) + " is not JSON");
  return v;
}

// `results` as hits: each object with a URL, title and snippet from the named fields.
std::vector<SearchHit> hits_of(const json::value* results, std::string_view snippet_key, std::size_t max) {
  std::vector<SearchHit> out;
  if (results == nullptr || !results->is_array()) return out;
  for (const json::value& r : results->get_array()) {
    if (out.size() >= max) break;
    if (!r.is_object()) continue;
    SearchHit hit;
    hit.url = ascii::trim(string_at(r.get_object(), "url"));
    if (hit.url.empty()) continue;
    hit.title = plain(string_at(r.get_object(), "title"), 200);
    hit.snippet = plain(string_at(r.get_object(), snippet_key), kMaxSnippetBytes);
    out.push_back(std::move(hit));
  }
  return out;
}

// A top-level `results` list as hits (ResultsListProvider).
Result<std::vector<SearchHit>> results_list(std::string_view body, std::string_view provider,
                                            std::size_t max) {
  auto v = parse_json(body, provider);
  if (!v) return std::move(v).error();
  const json::value* results = v->get_object().if_contains("results");
  if (results == nullptr || !results->is_array())
    return make_error(ErrorCode::tool_failed,
                      "the answer from " + std::string(provider) + " has no results list");
  return hits_of(results, "content", max);
}

// What a provider is besides its request and its answer: its name, where it answers unless configured
// elsewhere, and what to check when it refuses the key.
struct ProviderFacts {
  std::string_view name;
  std::string_view default_base;
  std::string_view refused_hint;
};

// What every provider keeps: its configuration, its facts and the base URL (configured, or the provider's
// own).
class ConfiguredProvider : public SearchProvider {
 public:
  std::string_view name() const final { return facts_.name; }
  std::string refused_hint() const final { return std::string(facts_.refused_hint); }

 protected:
  ConfiguredProvider(SearchProviderConfig c, ProviderFacts facts)
      : c_(std::move(c)), facts_(facts), base_(base_url(c_, facts.default_base)) {}
  SearchProviderConfig c_;
  ProviderFacts facts_;
  std::string base_;
};

class Brave final : public ConfiguredProvider {
 public:
  explicit Brave(SearchProviderConfig c)
      : ConfiguredProvider(
            std::move(c),
            {.name = "Brave Search",
             .default_base = "https://api.search.brave.com",
             .refused_hint = "check [search] api_key (or SIGIL_SEARCH_KEY): Brave's subscription token"}) {}
  net::HttpRequest request(std::string_view query) const override {
    net::HttpRequest r;
    r.url = base_ + "/res/v1/web/search?q=" + net::percent_encode(query) +
            "&count=" + std::to_string(c_.max_results);
    r.headers = {{"Accept", "application/json"}, {"X-Subscription-Token", c_.api_key}};
    return r;
  }

  Result<std::vector<SearchHit>> parse(std::string_view body) const override {
    auto v = parse_json(body, name());
    if (!v) return std::move(v).error();
    // No "web" member is how Brave says it found nothing on the web.
    const json::value* web = v->get_object().if_contains("web");
    if (web == nullptr || !web->is_object()) return std::vector<SearchHit>{};
    return hits_of(web->get_object().if_contains("results"), "description", c_.max_results);
  }
};

// Tavily and SearXNG answer alike: a top-level `results` list, snippets in "content".
class ResultsListProvider : public ConfiguredProvider {
 public:
  Result<std::vector<SearchHit>> parse(std::string_view body) const final {
    return results_list(body, name(), c_.max_results);
  }

 protected:
  using ConfiguredProvider::ConfiguredProvider;
};

class Tavily final : public ResultsListProvider {
 public:
  explicit Tavily(SearchProviderConfig c)
      : ResultsListProvider(
            std::move(c),
            {.name = "Tavily",
             .default_base = "https://api.tavily.com",
             .refused_hint = "check [search] api_key (or SIGIL_SEARCH_KEY): a Tavily API key (tvly-...)"}) {}
  net::HttpRequest request(std::string_view query) const override {
    net::HttpRequest r;
    r.method = "POST";
    r.url = base_ + "/search";
    r.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer " + c_.api_key}};
    json::object body{{"query", query},
                      {"max_results", static_cast<std::int64_t>(c_.max_results)},
                      {"search_depth", "basic"}};
    r.body = json::serialize(body);
    return r;
  }
};

class Searxng final : public ResultsListProvider {
 public:
  // SearXNG ships with JSON answers off: a 403 is nearly always that.
  explicit Searxng(SearchProviderConfig c)
      : ResultsListProvider(std::move(c), {.name = "SearXNG",
                                           .default_base = "",
                                           .refused_hint = "enable JSON answers on the SearXNG instance "
                                                           "(settings.yml: search.formats: [html, json])"}) {}
  net::HttpRequest request(std::string_view query) const override {
    net::HttpRequest r;
    r.url = base_ + "/search?q=" + net::percent_encode(query) + "&format=json";
    r.headers = {{"Accept", "application/json"}};
    return r;
  }
};

bool http_url(std::string_view url) {
  return ascii::istarts_with(url, "http://") || ascii::istarts_with(url, "https://");
}

}  // namespace

std::string error_detail(std::string_view body) {
  json::error_code ec;
  const json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return {};
  const json::object& o = v.get_object();
  std::string found;
  if (const json::value* error = o.if_contains("error")) {
    if (error->is_string()) found = std::string(error->get_string());
    if (error->is_object()) found = string_at(error->get_object(), "detail");
    if (found.empty() && error->is_object()) found = string_at(error->get_object(), "message");
  }
  if (const json::value* detail = o.if_contains("detail"); found.empty() && detail != nullptr) {
    if (detail->is_string()) found = std::string(detail->get_string());
    if (detail->is_object()) found = string_at(detail->get_object(), "error");
  }
  if (found.empty()) found = string_at(o, "message");
  return plain(found, 200);
}

Result<std::unique_ptr<SearchProvider>> make_search_provider(const SearchProviderConfig& config) {
  const std::string provider = ascii::to_lower(config.provider);
  const auto refuse = [](std::string why) { return make_error(ErrorCode::invalid_argument, std::move(why)); };
  if (!config.url.empty() && !http_url(config.url))
    return refuse("[search] url must start with http:// or https://");
  if (config.max_results == 0) return refuse("[search] max_results must be at least 1");
  if (provider == "brave" || provider == "tavily") {
    if (config.api_key.empty())
      return refuse("[search] provider \"" + provider + "\" needs api_key (or SIGIL_SEARCH_KEY)");
    if (provider == "brave") return std::unique_ptr<SearchProvider>(std::make_unique<Brave>(config));
    return std::unique_ptr<SearchProvider>(std::make_unique<Tavily>(config));
  }
  if (provider == "searxng") {
    if (config.url.empty())
      return refuse(
          "[search] provider \"searxng\" needs url: the instance's address, e.g. http://127.0.0.1:8888");
    return std::unique_ptr<SearchProvider>(std::make_unique<Searxng>(config));
  }
  return refuse("[search] provider must be \"brave\", \"tavily\", \"searxng\" or \"\", not \"" +
                config.provider + "\"");
}

}  // namespace sigil::actions
