#include "server/valid_utf8.h"

#include <string_view>

#include "sigil/text/utf8.h"

namespace sigil::server {

std::string valid_utf8(std::string text) {
  if (text::is_valid_utf8(text)) return text;
  std::string out;
  out.reserve(text.size() + 8);
  text::Utf8Sanitizer sanitizer;
  auto append = [&out](std::string_view piece) { out.append(piece); };
  sanitizer.feed(text, append);
  sanitizer.finish(append);
  return out;
}

}  // namespace sigil::server
