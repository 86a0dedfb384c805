// JSON text for people and scripts: like boost::json::serialize, but numbers are written the way a person
// writes them (`4`, `0.25`, `1e+21`), not Boost's `4E0` / `2.5E-1`.
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace sigil::parse {

std::string json_text(const boost::json::value& value);
void append_json_text(std::string& out, const boost::json::value& value);

}  // namespace sigil::parse
