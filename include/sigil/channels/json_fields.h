// Reading the chat platforms' JSON leniently (Telegram updates, Discord dispatches): a field that is missing
// or of another type reads as empty, never as an error, since platforms add and omit fields freely.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace sigil::channels {

// The integer at `key`, or 0.
inline std::int64_t int_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_int64() ? v->as_int64() : 0;
}
// The string at `key`, or "".
inline std::string string_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}
// The boolean at `key`, or false.
inline bool bool_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->as_bool();
}
// The object at `key`, or nullptr.
inline const boost::json::object* object_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

}  // namespace sigil::channels
