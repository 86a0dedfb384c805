// The built-in actions of spec section 13, as data.
#pragma once

#include <vector>

#include "sigil/spec/action_spec.h"

namespace sigil::spec {

// Every built-in action in the order of section 13, `mcp` last. Each call builds a fresh copy.
std::vector<ActionSpec> builtin_actions();

}  // namespace sigil::spec
