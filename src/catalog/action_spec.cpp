#include "sigil/catalog/action_spec.h"

#include "sigil/text/ascii.h"

namespace sigil::catalog {

namespace ascii = text::ascii;

std::size_t effective_body_limit(const ActionSpec& action, const Spelling& spelling) {
  if (spelling.body_limit != 0) return spelling.body_limit;
  if (spelling.body == parse::BodyKind::Content) return kUnlimitedBody;
  if (action.body_limit != 0) return action.body_limit;
  return spelling.body == parse::BodyKind::Json ? kDefaultJsonBodyLimit : kDefaultBodyLimit;
}

const ParamSpec* find_param(const ActionSpec& action, std::string_view key) {
  // The exact spelling first: models write the canonical name almost always, and one compare of the whole
  // name is cheaper than folding it byte by byte.
  auto same = [key](std::string_view name) {
    return name.size() == key.size() && (name == key || ascii::iequals(name, key));
  };
  for (const ParamSpec& param : action.params) {
    if (same(param.name)) return &param;
    for (const std::string& alias : param.aliases) {
      if (same(alias)) return &param;
    }
  }
  return nullptr;
}

std::vector<std::string> positional_params(const ActionSpec& action, const Spelling& spelling) {
  if (!spelling.positional.empty()) return spelling.positional;
  if (!action.body_param.empty()) return {action.body_param};
  if (action.params.size() == 1) return {action.params.front().name};
  return {};
}

bool needs_written_params(const ActionSpec& action, const Spelling& spelling) {
  for (const ParamRule& rule : action.rules) {
    if (rule.kind == ParamRule::Kind::ExactlyOne) return true;
  }
  for (const ParamSpec& param : action.params) {
    if (!param.required) continue;
    bool preset = false;
    for (const PresetParam& p : spelling.presets) preset = preset || ascii::iequals(p.name, param.name);
    if (!preset) return true;
  }
  return false;
}

std::string_view to_string(ParamType type) {
  switch (type) {
    case ParamType::String:
      return "string";
    case ParamType::Integer:
      return "integer";
    case ParamType::Number:
      return "number";
    case ParamType::Boolean:
      return "boolean";
    case ParamType::Enum:
      return "enum";
    case ParamType::Duration:
      return "duration";
    case ParamType::Datetime:
      return "datetime";
    case ParamType::Array:
      return "array";
    case ParamType::Json:
      return "json";
  }
  return "?";
}

std::string_view to_string(ResultTo result_to) {
  switch (result_to) {
    case ResultTo::Model:
      return "model";
    case ResultTo::ModelOnError:
      return "model_on_error";
    case ResultTo::User:
      return "user";
    case ResultTo::Inline:
      return "inline";
    case ResultTo::None:
      return "none";
  }
  return "?";
}

}  // namespace sigil::catalog
