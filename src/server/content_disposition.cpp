#include "server/content_disposition.h"

#include "sigil/net/url.h"

namespace sigil::server {

std::string ascii_file_name(std::string_view name) {
  std::string out;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    out += (c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '/') ? '_' : ch;
  }
  return out.empty() ? "file" : out;
}

std::string content_disposition(bool inline_disposition, std::string_view name) {
  return std::string(inline_disposition ? "inline" : "attachment") + "; filename=\"" + ascii_file_name(name) +
         "\"; filename*=UTF-8''" + net::percent_encode(name);
}

}  // namespace sigil::server
