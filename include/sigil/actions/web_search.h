// The `search` action (spec 13): a web search through the configured provider (search_providers.h), its
// results back to the model (`result_to: model`, interrupting: the model continues with them).
//
// What the handler promises:
// - The message the model gets is one line: `3 results for "q": [1] Title <https://…> — snippet [2] …`, or
//   `no results for "q"`. The result is {"query", "provider", "results": [{"title", "url", "snippet"}]}.
// - Every failure is a one-line error that says what to do, never silence: the provider refused the key
//   (401/403, with the provider's hint), is rate-limiting (429, with Retry-After when given), answered
//   another status (with the provider's own error text), sent something unreadable, could not be reached,
//   or did not answer within `timeout`. An empty query is refused before any request.
// - A time-out of the action (the executor's stop) cancels the request.
// - Without a provider (provider ""), the action is not taught and answers
//   `search: no web search provider is configured` (builtin_handlers.h).
#pragma once

#include <chrono>
#include <memory>

#include "sigil/actions/result.h"
#include "sigil/actions/search_providers.h"
#include "sigil/exec/handler.h"
#include "sigil/net/http_client.h"

namespace sigil::actions {

struct SearchConfig {
  SearchProviderConfig provider;  // provider.provider "": no web search
  std::chrono::milliseconds timeout{20'000};
  std::size_t max_answer_bytes = 1 << 20;  // a provider's answer beyond this is cut (and unreadable)
  std::shared_ptr<net::HttpClient> http;   // null: one of the actions' own, made at the first search
};

bool search_configured(const SearchConfig& config);

// invalid_argument when the provider's configuration is unusable (make_search_provider()).
Status<Error> add_search_handlers(exec::HandlerTable& table, const SearchConfig& config);

}  // namespace sigil::actions
