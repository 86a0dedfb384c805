#include "sigil/catalog/spec_builders.h"

#include <utility>

namespace sigil::catalog {

ParamSpec make_param(std::string name, ParamType type, bool required, std::vector<std::string> aliases,
                     std::string description) {
  ParamSpec p;
  p.name = std::move(name);
  p.type = type;
  p.required = required;
  p.aliases = std::move(aliases);
  p.description = std::move(description);
  return p;
}

Spelling make_spelling(Dialect dialect, std::string name, parse::BodyKind body, std::size_t body_limit,
                       std::vector<std::string> positional) {
  Spelling s;
  s.dialect = dialect;
  s.name = std::move(name);
  s.body = body;
  s.body_limit = body_limit;
  s.positional = std::move(positional);
  return s;
}

}  // namespace sigil::catalog
