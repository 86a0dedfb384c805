#include "server/query_string.h"

#include <utility>

#include "sigil/net/url.h"

namespace sigil::server {

std::optional<QueryParams> query_params(std::string_view target) {
  QueryParams params;
  const auto q = target.find('?');
  if (q == std::string_view::npos) return params;
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    auto key = net::percent_decode(pair.substr(0, eq), true);
    auto value =
        net::percent_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!key || !value) return std::nullopt;
    params[*key] = std::move(*value);
  }
  return params;
}

}  // namespace sigil::server
