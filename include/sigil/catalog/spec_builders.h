// Parameters and spellings written out by hand (the built-in catalog, tests): the fields given, every other
// one its default (action_spec.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sigil/catalog/action_spec.h"

namespace sigil::catalog {

ParamSpec make_param(std::string name, ParamType type = ParamType::String, bool required = false,
                     std::vector<std::string> aliases = {}, std::string description = {});

Spelling make_spelling(Dialect dialect, std::string name, parse::BodyKind body = parse::BodyKind::None,
                       std::size_t body_limit = 0, std::vector<std::string> positional = {});

}  // namespace sigil::catalog
