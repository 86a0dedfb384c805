// The built-in actions of spec section 13, as data.
#pragma once

#include <vector>

#include "sigil/catalog/action_spec.h"

namespace sigil::catalog {

// Every built-in action in the order of section 13, `mcp` last. Each call builds a fresh copy.
std::vector<ActionSpec> builtin_actions();

}  // namespace sigil::catalog
