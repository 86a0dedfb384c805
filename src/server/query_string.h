// The query string of a request target, as the gateway's endpoints read it (percent-decoding: net/url.h).
//
// Our own decoder, not Boost.URL's: the Boost.URL functions that validate and decode (make_pct_string_view,
// parse_query, decode_view's decoding) live in its compiled library, which is not installed and not linked
// (see the server-rooms branch report); and parse_query's strict RFC 3986 character set would refuse
// targets (raw `|`, `"`, UTF-8) that the endpoints answer today with their own, more precise, 400.
//
// What it promises:
// - query_params(): the part after the first '?', split on '&' and at the first '=' of each pair; empty
//   pairs are skipped, a pair without '=' has an empty value, the last of a repeated key wins. nullopt when
//   any key or value has a broken escape.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sigil::server {

using QueryParams = std::map<std::string, std::string>;
std::optional<QueryParams> query_params(std::string_view target);

}  // namespace sigil::server
