// The handlers and the clients they call read JSON leniently (directive arguments, MCP and OAuth answers,
// search providers' results): text/json_fields.h.
#pragma once

#include "sigil/text/json_fields.h"

namespace sigil::actions {

using text::string_at;

}  // namespace sigil::actions
