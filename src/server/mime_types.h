// Content types by file extension, for the embedded web page and media downloads: text/media_types.h's
// table, with the charset the gateway serves text in.
#pragma once

#include <string>
#include <string_view>

namespace sigil::server {

// The Content-Type for a file name by its extension (text::mime_type_for_name: case-insensitive, a leading
// dot is no extension): text types carry "; charset=utf-8"; an unknown extension is
// "application/octet-stream".
std::string mime_for_name(std::string_view name);

}  // namespace sigil::server
