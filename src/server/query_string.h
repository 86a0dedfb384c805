// Percent-decoding and the query string of a request target, as the gateway's endpoints read them.
//
// Our own decoder, not Boost.URL's: the Boost.URL functions that validate and decode (make_pct_string_view,
// parse_query, decode_view's decoding) live in its compiled library, which is not installed and not linked
// (see the server-rooms branch report); and parse_query's strict RFC 3986 character set would refuse
// targets (raw `|`, `"`, UTF-8) that the endpoints answer today with their own, more precise, 400.
//
// What it promises:
// - percent_decode(): every %XX (either case of hex digit) becomes its byte, '+' becomes a space when
//   asked (form encoding: query strings), every other byte stays as it is; nullopt for a '%' that is not
//   followed by two hex digits. The result may hold any byte (NUL, invalid UTF-8): callers validate.
// - query_params(): the part after the first '?', split on '&' and at the first '=' of each pair; empty
//   pairs are skipped, a pair without '=' has an empty value, the last of a repeated key wins. nullopt when
//   any key or value has a broken escape.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sigil::server {

std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space);

using QueryParams = std::map<std::string, std::string>;
std::optional<QueryParams> query_params(std::string_view target);

}  // namespace sigil::server
