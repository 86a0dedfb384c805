// Checking action names given on the command line (`--deny`) against the registry, shared by the commands.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/catalog/registry.h"

namespace sigil::app {

// True when every name is a canonical action of `registry`. Otherwise writes one line to `err`,
// `<context>: no action named "x" (actions: a, b, ...)`, and returns false (the command then exits 2).
bool check_action_names(const catalog::Registry& registry, const std::vector<std::string>& names,
                        std::string_view context, std::ostream& err);

}  // namespace sigil::app
