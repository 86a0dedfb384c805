// The Content-Disposition of a media download (RFC 6266): the name a browser saves the file under.
#pragma once

#include <string>
#include <string_view>

namespace sigil::server {

// `name` fit for the quoted `filename`: printable ASCII, every other byte and every '"', '\\' and '/'
// replaced by '_'; "file" for an empty name. (The UTF-8 original goes in filename*.)
std::string ascii_file_name(std::string_view name);

// `inline` or `attachment`; filename="<ascii_file_name>"; filename*=UTF-8''<percent-encoded name>.
std::string content_disposition(bool inline_disposition, std::string_view name);

}  // namespace sigil::server
