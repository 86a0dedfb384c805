// Reading JSON leniently: a field that is missing or of another type reads as empty (0, "", false, nullptr),
// never as an error. For what others write and may change: the chat platforms' updates and dispatches (they
// add and omit fields freely), directive arguments, MCP and OAuth answers, search providers' results.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace sigil::text {

// The integer at `key`, or 0.
inline std::int64_t int_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_int64() ? v->as_int64() : 0;
}
// The string at `key`, or "".
inline std::string string_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}
// The boolean at `key`, or false.
inline bool bool_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}
// The object at `key`, or nullptr.
inline const boost::json::object* object_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

// What a value is, as a message to the one who wrote it says it ("expected a string, but got an array"):
// "null", "a boolean", "an integer" (int64 or uint64), "a number" (a double), "a string", "an array",
// "an object".
inline std::string_view json_kind_name(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return "a number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "something else";
}

}  // namespace sigil::text
