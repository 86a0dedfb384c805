#include "sigil/catalog/action_spec.h"

#include "sigil/text/ascii.h"
#include "sigil/text/enum_names.h"

namespace sigil::catalog {

namespace ascii = text::ascii;

std::size_t effective_body_limit(const ActionSpec& action, const Spelling& spelling) {
  if (spelling.body_limit != 0) return spelling.body_limit;
  if (spelling.body == parse::BodyKind::Content) return kUnlimitedBody;
  if (action.body_limit != 0) return action.body_limit;
  return spelling.body == parse::BodyKind::Json ? kDefaultJsonBodyLimit : kDefaultBodyLimit;
}

const ParamSpec* find_param(const ActionSpec& action, std::string_view key) {
  // Bytes compared inline, as written first (models write the canonical name almost always), the rest
  // folded: the keys are a few bytes long, where a call of memcmp costs more than the compare. Names and
  // aliases are unique case-insensitively (Registry::check), so the first that folds equal is the one.
  auto same = [key](std::string_view name) {
    const std::size_t n = key.size();
    if (name.size() != n) return false;
    std::size_t i = 0;
    while (i < n && name[i] == key[i]) ++i;
    for (; i < n; ++i)
      if (ascii::lower(name[i]) != ascii::lower(key[i])) return false;
    return true;
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

namespace {
constexpr text::EnumNames<ParamType::Json> kParamTypeNames{
    {"string", "integer", "number", "boolean", "enum", "duration", "datetime", "array", "json"}, "?"};
constexpr text::EnumNames<ResultTo::None> kResultToNames{
    {"model", "model_on_error", "user", "inline", "none"}, "?"};
}  // namespace

std::string_view to_string(ParamType type) { return kParamTypeNames.name(type); }

std::string_view to_string(ResultTo result_to) { return kResultToNames.name(result_to); }

}  // namespace sigil::catalog
