#include "sigil/net/http_message.h"

#include "sigil/text/ascii.h"

namespace sigil::net {

const std::string* find_header(const Headers& headers, std::string_view name) noexcept {
  for (const Header& header : headers) {
    if (text::ascii::iequals(header.name, name)) return &header.value;
  }
  return nullptr;
}

}  // namespace sigil::net
