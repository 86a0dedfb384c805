// What goes out in a WebSocket text frame or an SSE line must be UTF-8 (a browser drops a WebSocket that
// sends anything else), but an upstream error message or a stored text may not be.
#pragma once

#include <string>

namespace sigil::server {

// `text` unchanged when it is valid UTF-8 (one pass; the common case), else with each ill-formed unit
// replaced by U+FFFD.
std::string valid_utf8(std::string text);

}  // namespace sigil::server
