// Canonical JSON text for exactly-once keys (12.4): object keys sorted (bytewise), no whitespace,
// strings and numbers as Boost.JSON serializes them.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

namespace sigil::exec {

std::string canonical_json(const boost::json::value& value);
// The same for a directive's arguments, without copying them into a value first.
std::string canonical_json(const boost::json::object& object);

}  // namespace sigil::exec
