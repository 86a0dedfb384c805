#include "sigil/exec/canonical_json.h"

#include <algorithm>
#include <array>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <vector>

#include "sigil/text/json_string.h"

namespace sigil::exec {
namespace {

using Member = const boost::json::key_value_pair*;

void write(const boost::json::value& v, std::string& out);

void write_members(Member* items, std::size_t n, std::string& out) {
  std::sort(items, items + n, [](Member a, Member b) { return a->key() < b->key(); });
  out.push_back('{');
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out.push_back(',');
    text::append_json_string(out, items[i]->key());
    out.push_back(':');
    write(items[i]->value(), out);
  }
  out.push_back('}');
}

template <class Int>
void write_integer(Int n, std::string& out) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out.append(digits, end);
}

void write_object(const boost::json::object& o, std::string& out) {
  std::array<Member, 16> few;  // a directive's arguments: a handful of members, sorted in place
  if (o.size() <= few.size()) {
    std::size_t n = 0;
    for (const auto& kv : o) few[n++] = &kv;
    return write_members(few.data(), n, out);
  }
  std::vector<Member> items;
  items.reserve(o.size());
  for (const auto& kv : o) items.push_back(&kv);
  write_members(items.data(), items.size(), out);
}

// As Boost.JSON serializes each kind, written straight into `out` (the only allocation is out's growth).
void write(const boost::json::value& v, std::string& out) {
  switch (v.kind()) {
    case boost::json::kind::object:
      write_object(v.get_object(), out);
      return;
    case boost::json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        write(e, out);
      }
      out.push_back(']');
      return;
    }
    case boost::json::kind::string:
      text::append_json_string(out, v.get_string());
      return;
    case boost::json::kind::int64:
      write_integer(v.get_int64(), out);
      return;
    case boost::json::kind::uint64:
      write_integer(v.get_uint64(), out);
      return;
    case boost::json::kind::bool_:
      out.append(v.get_bool() ? "true" : "false");
      return;
    case boost::json::kind::null:
      out.append("null");
      return;
    case boost::json::kind::double_:
      out += boost::json::serialize(v);  // Boost's own shortest form, as the keys always had
      return;
  }
}

}  // namespace

std::string canonical_json(const boost::json::value& value) {
  std::string out;
  write(value, out);
  return out;
}

std::string canonical_json(const boost::json::object& object) {
  std::string out;
  out.reserve(64);
  write_object(object, out);
  return out;
}

}  // namespace sigil::exec
