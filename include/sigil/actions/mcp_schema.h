// A small JSON Schema checker for MCP tool arguments: catches what a model gets wrong most often, with a
// message it can act on, before a call is made.
//
// Checked: `type` (object, array, string, number, integer, boolean, null, or a list of them), `required`,
// `properties` (recursively), `items` (one schema for every element) and `enum`. Every other keyword
// ($schema, default, description, format, additionalProperties, anyOf...) is ignored: the server checks
// again, so what is not checked here is the server's to refuse, never ours.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

#include "sigil/base/result.h"

namespace sigil::actions {

// Fails with one line naming the path of the first mismatch (`arguments.count`) and what was expected.
Status<std::string> check_mcp_arguments(const boost::json::object& schema,
                                        const boost::json::value& arguments);

}  // namespace sigil::actions
