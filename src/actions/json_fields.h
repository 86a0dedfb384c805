// Reading JSON leniently in the handlers and the clients they call (directive arguments, MCP and OAuth
// answers, search providers' results): a field that is missing or of another type reads as empty.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace sigil::actions {

// The string at `key`, or "".
inline std::string string_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace sigil::actions
