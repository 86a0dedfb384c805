// Checks of what a client sends, before any endpoint acts on it: ids, the bearer token, the body's type.
// Pure, so each is tested on its own (tests/server/request_checks_test.cpp).
#pragma once

#include <string_view>

namespace sigil::server {

// A conversation or user id: 1 to 128 of [A-Za-z0-9._-]. Ids end up in store keys and frames, so nothing
// else (no '/', no space, no non-ASCII) ever gets that far.
bool valid_conversation_id(std::string_view id);

// Equal strings, in time that depends on the length only, never on where they differ: a remote client
// cannot find a token byte by byte.
bool same_secret(std::string_view a, std::string_view b);

// Whether an Authorization header value ("" when the header is absent) carries `token` as
// "Bearer <token>" (scheme case-sensitive, one space). Always true when `token` is empty: no auth.
bool bearer_authorized(std::string_view authorization, std::string_view token);

// "application/json" with or without parameters (charset), in any (ASCII) case, with surrounding
// whitespace (text::ascii::trim).
bool is_json_content_type(std::string_view value);

}  // namespace sigil::server
