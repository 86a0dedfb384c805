// Content types by file extension, for the embedded web page and media downloads.
#pragma once

#include <string_view>

namespace sigil::server {

// The Content-Type for a file name by its extension (case-insensitive): text types carry
// "; charset=utf-8"; an unknown extension is "application/octet-stream".
std::string_view mime_for_name(std::string_view name);

}  // namespace sigil::server
