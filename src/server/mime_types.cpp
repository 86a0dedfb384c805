#include "server/mime_types.h"

#include "sigil/text/media_types.h"

namespace sigil::server {

std::string mime_for_name(std::string_view name) {
  std::string type(text::mime_type_for_name(name));
  // What the gateway serves as text is UTF-8 (its page, the demo script, model-written files): saying so
  // keeps a browser from guessing another charset.
  if (type.starts_with("text/")) type += "; charset=utf-8";
  return type;
}

}  // namespace sigil::server
