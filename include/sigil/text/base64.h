// Base64 (RFC 4648, section 4: the standard alphabet with `=` padding), the one copy every layer uses: image
// data from a model server (b64_json), images sent to a model as data: URLs, Discord's voice waveforms,
// OAuth's PKCE challenges and signed client assertions (base64url).
//
// What it promises:
// - base64_encode always pads, never wraps lines.
// - base64url_encode is the URL-safe alphabet without padding (section 5), as JWS and PKCE use it.
// - base64_decode is strict about what it reads: the standard alphabet only, with or without padding (but
//   padding only at the end, and only where it belongs); ASCII whitespace (line breaks of wrapped output)
//   is skipped. Anything else is nullopt, never a best guess, so a corrupt answer is noticed, not sent on.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sigil::text {

std::string base64_encode(std::string_view bytes);
std::string base64url_encode(std::string_view bytes);

std::optional<std::string> base64_decode(std::string_view text);

}  // namespace sigil::text
