#include "sigil/exec/canonical_json.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <vector>

namespace sigil::exec {
namespace {

void write(const boost::json::value& v, std::string& out) {
  if (const auto* o = v.if_object()) {
    std::vector<const boost::json::key_value_pair*> items;
    items.reserve(o->size());
    for (const auto& kv : *o) items.push_back(&kv);
    std::sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
    out.push_back('{');
    bool first = true;
    for (const auto* kv : items) {
      if (!first) out.push_back(',');
      first = false;
      out += boost::json::serialize(boost::json::string(kv->key()));
      out.push_back(':');
      write(kv->value(), out);
    }
    out.push_back('}');
  } else if (const auto* a = v.if_array()) {
    out.push_back('[');
    bool first = true;
    for (const auto& e : *a) {
      if (!first) out.push_back(',');
      first = false;
      write(e, out);
    }
    out.push_back(']');
  } else {
    out += boost::json::serialize(v);
  }
}

}  // namespace

std::string canonical_json(const boost::json::value& value) {
  std::string out;
  write(value, out);
  return out;
}

}  // namespace sigil::exec
