#include "sigil/actions/mcp_schema.h"

#include <boost/json.hpp>
#include <cmath>
#include <string_view>

#include "sigil/text/json_fields.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

// Stops a schema that refers to itself through deep nesting from taking the stack.
constexpr int kMaxDepth = 32;

bool is_integer(const json::value& v) {
  if (v.is_int64() || v.is_uint64()) return true;
  if (!v.is_double()) return false;
  const double d = v.get_double();
  return std::isfinite(d) && std::floor(d) == d;
}

bool has_type(const json::value& v, std::string_view type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "number") return v.is_number();
  if (type == "integer") return is_integer(v);
  if (type == "boolean") return v.is_bool();
  if (type == "null") return v.is_null();
  return true;  // an unknown type name: not ours to judge
}

// As the messages elsewhere name a value's kind, but a double with no fraction is "an integer", as
// JSON Schema counts it.
std::string_view kind_of(const json::value& v) {
  return v.is_double() && is_integer(v) ? "an integer" : text::json_kind_name(v);
}

Status<std::string> check(const json::object& schema, const json::value& v, const std::string& path,
                          int depth) {
  if (depth > kMaxDepth) return {};
  if (const auto* type = schema.if_contains("type")) {
    bool ok = true;
    std::string expected;
    if (type->is_string()) {
      ok = has_type(v, type->get_string());
      expected = type->get_string();
    } else if (type->is_array()) {
      ok = false;
      for (const json::value& t : type->get_array()) {
        if (!t.is_string()) continue;
        expected += (expected.empty() ? "" : " or ") + std::string(t.get_string());
        ok = ok || has_type(v, t.get_string());
      }
      if (expected.empty()) ok = true;
    }
    if (!ok) return path + " must be " + expected + ", not " + std::string(kind_of(v));
  }
  if (const auto* values = schema.if_contains("enum"); values != nullptr && values->is_array()) {
    bool found = false;
    for (const json::value& e : values->get_array()) found = found || e == v;
    if (!found) return path + " must be one of " + json::serialize(*values) + ", not " + json::serialize(v);
  }
  if (const auto* o = v.if_object()) {
    if (const auto* required = schema.if_contains("required"); required != nullptr && required->is_array()) {
      for (const json::value& name : required->get_array()) {
        if (name.is_string() && !o->contains(name.get_string()))
          return path + "." + std::string(name.get_string()) + " is required";
      }
    }
    if (const auto* props = schema.if_contains("properties"); props != nullptr && props->is_object()) {
      for (const auto& kv : props->get_object()) {
        const auto* given = o->if_contains(kv.key());
        if (given == nullptr || !kv.value().is_object()) continue;
        if (auto r = check(kv.value().get_object(), *given, path + "." + std::string(kv.key()), depth + 1);
            !r)
          return r;
      }
    }
  }
  if (const auto* a = v.if_array()) {
    if (const auto* items = schema.if_contains("items"); items != nullptr && items->is_object()) {
      for (std::size_t i = 0; i < a->size(); ++i) {
        if (auto r = check(items->get_object(), (*a)[i], path + "[" + std::to_string(i) + "]", depth + 1); !r)
          return r;
      }
    }
  }
  return {};
}

}  // namespace

Status<std::string> check_mcp_arguments(const json::object& schema, const json::value& arguments) {
  return check(schema, arguments, "arguments", 0);
}

}  // namespace sigil::actions
