// Canonical JSON for exactly-once keys, written directly: it must equal what the keys were always made of
// (Boost.JSON's serializer over the sorted value), or a turn run again after an upgrade would get new keys
// and run its actions twice.
#include "sigil/exec/canonical_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <vector>

namespace sigil::exec {
namespace {

// The definition as it was first written: sort the members, serialize every scalar with Boost.JSON.
void reference(const boost::json::value& v, std::string& out) {
  if (const auto* o = v.if_object()) {
    std::vector<const boost::json::key_value_pair*> items;
    for (const auto& kv : *o) items.push_back(&kv);
    std::sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
    out.push_back('{');
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out.push_back(',');
      out += boost::json::serialize(boost::json::string(items[i]->key()));
      out.push_back(':');
      reference(items[i]->value(), out);
    }
    out.push_back('}');
  } else if (const auto* a = v.if_array()) {
    out.push_back('[');
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i > 0) out.push_back(',');
      reference((*a)[i], out);
    }
    out.push_back(']');
  } else {
    out += boost::json::serialize(v);
  }
}

std::string reference(const boost::json::value& v) {
  std::string out;
  reference(v, out);
  return out;
}

TEST(ExecCanonicalJson, EqualsTheBoostJsonDefinition) {
  for (std::string_view text : {
           R"({})",
           R"({"fact":"the user likes tea"})",
           R"({"b":1,"a":-2,"c":18446744073709551615,"d":-9223372036854775808,"e":0})",
           R"({"x":1.5,"y":-0.0,"z":1e300,"w":3.14159,"v":1E-7,"u":100.0})",
           R"({"s":"quote \" back \\ nl \n tab \t ctl \u0001 del \u007f","t":"caf\u00e9 \ud83d\udc4d"})",
           R"({"n":null,"t":true,"f":false,"arr":[1,"two",[3],{"b":2,"a":1}]})",
           R"({"k17":1,"k16":1,"k15":1,"k14":1,"k13":1,"k12":1,"k11":1,"k10":1,"k9":1,"k8":1,"k7":1,"k6":1,
               "k5":1,"k4":1,"k3":1,"k2":1,"k1":1,"k0":{"deep":{"b":[],"a":{}}}})",
           R"({"":"empty key","\u00e9":"e acute","Z":"upper","a":"lower"})",
       }) {
    const boost::json::value v = boost::json::parse(text);
    EXPECT_EQ(canonical_json(v), reference(v)) << text;
    EXPECT_EQ(canonical_json(v.as_object()), reference(v)) << text;
  }
  for (std::string_view text : {R"([3,2,1])", R"("just a string")", R"(42)", R"(null)"}) {
    const boost::json::value v = boost::json::parse(text);
    EXPECT_EQ(canonical_json(v), reference(v)) << text;
  }
}

}  // namespace
}  // namespace sigil::exec
