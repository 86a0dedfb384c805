// Checks of what a client sends, before any endpoint acts on it: ids, the bearer token, the body's type.
// Pure, so each is tested on its own (tests/server/request_checks_test.cpp).
#pragma once

#include <string_view>

#include "sigil/text/same_secret.h"

namespace sigil::server {

// A conversation or user id: 1 to 128 of [A-Za-z0-9._-]. Ids end up in store keys and frames, so nothing
// else (no '/', no space, no non-ASCII) ever gets that far.
bool valid_conversation_id(std::string_view id);

// Equal strings, in time that depends on the length only (sigil/text/same_secret.h).
using text::same_secret;

// Whether an Authorization header value ("" when the header is absent) carries `token` as
// "Bearer <token>" (scheme case-sensitive, one space). Always true when `token` is empty: no auth.
bool bearer_authorized(std::string_view authorization, std::string_view token);

// "application/json" with or without parameters (charset), in any (ASCII) case, with surrounding
// whitespace (text::ascii::trim).
bool is_json_content_type(std::string_view value);

}  // namespace sigil::server
