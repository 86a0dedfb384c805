// The chat platforms' JSON (Telegram updates, Discord dispatches) is read leniently: text/json_fields.h.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <optional>
#include <string_view>
#include <utility>

#include "sigil/text/json_fields.h"

namespace sigil::channels {

using text::bool_at;
using text::int_at;
using text::object_at;
using text::string_at;

// The object `json` holds; nullopt when it is not JSON or not an object (an update, a dispatch or a record
// of ours that is anything else is refused alike).
inline std::optional<boost::json::object> parse_object(std::string_view json) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(json, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

}  // namespace sigil::channels
