#include "server/request_checks.h"

#include <algorithm>
#include <cstddef>

#include "sigil/text/ascii.h"

namespace sigil::server {

bool valid_conversation_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(),
                     [](char c) { return text::ascii::is_alnum(c) || c == '.' || c == '_' || c == '-'; });
}

bool bearer_authorized(std::string_view authorization, std::string_view token) {
  if (token.empty()) return true;
  constexpr std::string_view bearer = "Bearer ";
  return authorization.starts_with(bearer) && same_secret(authorization.substr(bearer.size()), token);
}

bool is_json_content_type(std::string_view value) {
  return text::ascii::iequals(text::ascii::trim(value.substr(0, value.find(';'))), "application/json");
}

}  // namespace sigil::server
