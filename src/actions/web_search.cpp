#include "sigil/actions/web_search.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <utility>

#include "actions/web_client.h"
#include "sigil/net/retry_after.h"
#include "sigil/text/ascii.h"
#include "sigil/text/diagnostic_text.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

std::string quoted(std::string_view query) { return "\"" + text::one_line(std::string(query)) + "\""; }

class SearchHandler final : public exec::ActionHandler {
 public:
  SearchHandler(SearchConfig config, std::unique_ptr<SearchProvider> provider)
      : config_(std::move(config)), provider_(std::move(provider)), http_(config_.http) {}

  exec::HandlerResult run(const exec::Directive& d, exec::ActionContext& ctx) override {
    const json::value* arg = d.args.if_contains("query");
    const std::string query = arg != nullptr && arg->is_string()
                                  ? std::string(text::ascii::trim(arg->get_string()))
                                  : std::string();
    if (query.empty()) return exec::HandlerResult::error("search: the query is empty");
    if (ctx.stop_requested()) return exec::HandlerResult::error("search: stopped before it ran");

    net::HttpRequest request = provider_->request(query);
    request.timeouts.deadline = std::chrono::steady_clock::now() + config_.timeout;
    const net::HttpResult answer =
        fetch_and_wait(http_.get(), std::move(request), config_.max_answer_bytes, ctx.stop_token());
    const std::string who(provider_->name());
    if (answer.error) {
      if (answer.error->kind == net::NetErrorKind::deadline)
        return exec::HandlerResult::error("search: " + who + " did not answer within " +
                                          text::format_duration(config_.timeout));
      if (answer.error->kind == net::NetErrorKind::cancelled)
        return exec::HandlerResult::error("search: stopped while waiting for " + who);
      return exec::HandlerResult::error("search: cannot reach " + who + ": " + answer.error->message);
    }
    const int status = answer.head.status;
    if (status == 429) {
      std::string message = "search: " + who + " is rate-limiting requests (HTTP 429)";
      if (const std::string* after = answer.head.find("Retry-After")) {
        if (auto wait = net::parse_retry_after(*after, std::chrono::system_clock::now()))
          message += "; try again in " + std::to_string(wait->count()) + "s";
      }
      return exec::HandlerResult::error(message + "; answer without searching for now");
    }
    if (status == 401 || status == 403) {
      return exec::HandlerResult::error("search: " + who + " refused the request (HTTP " +
                                        std::to_string(status) + "): " + provider_->refused_hint());
    }
    if (status < 200 || status > 299) {
      std::string message = "search: " + who + " answered HTTP " + std::to_string(status);
      if (const std::string detail = error_detail(answer.body); !detail.empty()) message += ": " + detail;
      return exec::HandlerResult::error(message);
    }
    auto hits = provider_->parse(answer.body);
    if (!hits) return exec::HandlerResult::error("search: " + hits.error().message);

    json::array results;
    std::string message;
    for (std::size_t i = 0; i < hits->size(); ++i) {
      const SearchHit& hit = (*hits)[i];
      results.push_back(json::object{{"title", hit.title}, {"url", hit.url}, {"snippet", hit.snippet}});
      message += " [" + std::to_string(i + 1) + "] " + (hit.title.empty() ? "(untitled)" : hit.title) + " <" +
                 hit.url + ">";
      if (!hit.snippet.empty()) message += " — " + hit.snippet;
    }
    const std::size_t n = hits->size();
    message = n == 0 ? "no results for " + quoted(query)
                     : std::to_string(n) + (n == 1 ? " result" : " results") + " for " + quoted(query) + ":" +
                           message;
    json::object result{{"query", query}, {"provider", who}, {"results", std::move(results)}};
    return exec::HandlerResult::ok(std::move(message), std::move(result));
  }

 private:
  SearchConfig config_;
  std::unique_ptr<SearchProvider> provider_;
  SharedHttpClient http_;
};

}  // namespace

bool search_configured(const SearchConfig& config) { return !config.provider.provider.empty(); }

Status<Error> add_search_handlers(exec::HandlerTable& table, const SearchConfig& config) {
  if (!search_configured(config)) {
    table.add("search", [](const exec::Directive&, exec::ActionContext&) {
      return exec::HandlerResult::error("search: no web search provider is configured");
    });
    return {};
  }
  auto provider = make_search_provider(config.provider);
  if (!provider) return std::move(provider).error();
  table.add("search", std::make_shared<SearchHandler>(config, std::move(*provider)));
  return {};
}

}  // namespace sigil::actions
