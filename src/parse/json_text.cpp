#include "sigil/parse/json_text.h"

#include <boost/json/serialize.hpp>
#include <charconv>

namespace sigil::parse {

void append_json_text(std::string& out, const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& kv : v.get_object()) {
        if (!first) out += ',';
        first = false;
        out += boost::json::serialize(boost::json::string_view(kv.key()));
        out += ':';
        append_json_text(out, kv.value());
      }
      out += '}';
      return;
    }
    case boost::json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out += ',';
        first = false;
        append_json_text(out, e);
      }
      out += ']';
      return;
    }
    case boost::json::kind::double_: {
      // Shortest text that reads back as the same double; JSON has no NaN or infinity (null then).
      const double d = v.get_double();
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
      if (ec != std::errc() || d != d || d - d != 0) {
        out += "null";
        return;
      }
      out.append(buf, end);
      return;
    }
    default:
      out += boost::json::serialize(v);
      return;
  }
}

std::string json_text(const boost::json::value& value) {
  std::string out;
  append_json_text(out, value);
  return out;
}

}  // namespace sigil::parse
