// The common tag and bracket directives validated in place (validate.h: validate_tag_simple,
// validate_bracket_simple): what validate_tag and validate_bracket would return, without their collector,
// conversion records and argument object (the arguments are deferred: Validated::args_deferred), so a caller
// that keeps one Validated neither allocates nor builds JSON for them in the steady state.
#include <array>
#include <cstdint>
#include <optional>

#include "sigil/catalog/validate.h"
#include "sigil/parse/unset_slots.h"
#include "sigil/text/ascii.h"

namespace sigil::catalog {

namespace ascii = text::ascii;

namespace {

// More attributes than this take the general path (no directive in the catalog has as many parameters).
constexpr std::size_t kMaxSimple = parse::kMaxDeferredArgs;
// The parameters and the values taken so far, [0, count) of each set: left unset when made (zeroing the
// bracket path's four arrays cost about 60 instructions a directive), each entry written before it is read.
using Params = std::array<const ParamSpec*, kMaxSimple>;
using Views = parse::UnsetSlots<std::string_view, kMaxSimple>;

// The argument a string or enum parameter gets from `written` (validate.cpp's convert() for these two
// types), or nothing when the general path must decide (a blank value, an enum value not in the list).
bool simple_value(const ParamSpec& p, std::string_view written, std::string_view* out) {
  const std::string_view trimmed = ascii::trim(written);
  if (trimmed.empty()) return false;  // missing (9.3): empty-required errors, or left out of args
  if (p.type == ParamType::String) {
    *out = written;  // strings are kept as written
    return true;
  }
  for (const EnumValue& e : p.enum_values) {
    if (ascii::iequals(trimmed, e.written)) {  // `written` is lower case: the same as to_lower(trimmed)
      *out = e.canonical;
      return true;
    }
  }
  return false;  // the fallback (with its note) or a failure
}

// Writes a valid result: the arguments are `values` under the canonical names of `params`, in that order,
// deferred (Validated::args_deferred): copied into out's arena, whose storage stays, and no JSON built.
// (In three parts, so that the flat path writes each argument as it accepts it and keeps no copy of them.)
void put_arg(std::size_t i, std::string_view name, std::string_view value, parse::Validated& out) {
  out.deferred[i] = {name, static_cast<std::uint32_t>(out.arena.append(value)),
                     static_cast<std::uint32_t>(value.size())};
}
[[gnu::always_inline]] inline void finish_valid(std::size_t n, parse::Validated& out) {
  out.deferred_count = static_cast<std::uint8_t>(n);
  out.args_deferred = true;
  out.valid = true;
  if (!out.error.empty()) out.error.clear();
  if (!out.notes.empty()) out.notes.clear();
}
void write_valid(const Params& params, const Views& values, std::size_t n, parse::Validated& out) {
  out.arena.clear();
  for (std::size_t i = 0; i < n; ++i) put_arg(i, params[i]->name, values[i], out);
  finish_valid(n, out);
}

// Whether every required parameter of `action` is among params[0, n).
bool all_required_given(const ActionSpec& action, const Params& params, std::size_t n) {
  for (const ParamSpec& p : action.params) {
    if (!p.required) continue;
    bool given = false;
    for (std::size_t i = 0; i < n && !given; ++i) given = params[i] == &p;
    if (!given) return false;
  }
  return true;
}

// Accepts `written` for `p` at index i of params (no duplicate, a string or enum value that converts).
bool accept(const ParamSpec* p, std::string_view written, std::size_t i, Params& params, Views& values) {
  if (p == nullptr) return false;
  if (p->type != ParamType::String && p->type != ParamType::Enum) return false;
  for (std::size_t j = 0; j < i; ++j)
    if (params[j] == p) return false;  // a duplicate key's note
  if (!simple_value(*p, written, &values[i])) return false;
  params[i] = p;
  return true;
}

}  // namespace

std::optional<std::uint32_t> flat_required(const ActionSpec& action, const Spelling& spelling) {
  if (spelling.dialect != Dialect::Tag || !spelling.presets.empty() || !action.rules.empty() ||
      action.params.size() > 32)
    return std::nullopt;
  std::uint32_t bits = 0;
  for (std::size_t j = 0; j < action.params.size(); ++j)
    if (action.params[j].required) bits |= std::uint32_t{1} << j;
  return bits;
}

bool validate_tag_flat(const ActionSpec& action, std::uint32_t required,
                       std::span<const parse::AttributeRef> attributes, parse::Validated& out) {
  const std::size_t n = attributes.size();
  if (n > kMaxSimple) return false;
  // Each argument goes into `out` as it is accepted (no copy of them kept: this runs once per directive);
  // a refusal leaves a part written, which the caller replaces.
  out.arena.clear();
  std::uint32_t given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const parse::AttributeRef& a = attributes[i];
    if (!a.has_value) return false;  // a bare key: true for a boolean, missing for a string
    const ParamSpec* found = find_param(action, a.key);
    if (found == nullptr) return false;  // an unknown key's note
    const std::uint32_t bit = std::uint32_t{1} << (found - action.params.data());
    if ((given & bit) != 0) return false;  // a duplicate key's note
    const ParamSpec& p = *found;
    std::string_view value = a.value;  // strings are kept as written
    if (p.type == ParamType::String) {
      if (ascii::trim_left(value).empty()) return false;  // missing (9.3)
    } else if (p.type != ParamType::Enum || !simple_value(p, a.value, &value)) {
      return false;
    }
    given |= bit;
    put_arg(i, p.name, value, out);
  }
  if ((given & required) != required) return false;  // a missing required parameter's error
  finish_valid(n, out);
  return true;
}

bool validate_one_flat(const ParamSpec& param, std::string_view value, parse::Validated& out) {
  // validate_tag_flat()'s steps for its one attribute, past the lookup and the checks that the key decides.
  if (param.type == ParamType::String) {
    if (ascii::trim_left(value).empty()) return false;  // missing (9.3)
  } else if (!simple_value(param, value, &value)) {
    return false;
  }
  out.arena.clear();
  put_arg(0, param.name, value, out);
  finish_valid(1, out);
  return true;
}

bool validate_tag_simple(const ActionSpec& action, const Spelling& spelling,
                         std::span<const parse::AttributeRef> attributes, const parse::Body& body,
                         parse::Validated& out) {
  if (body.kind != parse::Body::Kind::Absent) return false;
  const std::optional<std::uint32_t> required = flat_required(action, spelling);
  return required && validate_tag_flat(action, *required, attributes, out);
}

bool validate_bracket_simple(const ActionSpec& action, const Spelling& spelling, std::string_view args,
                             bool has_args, parse::Validated& out) {
  if (spelling.dialect != Dialect::Bracket || !has_args || !spelling.presets.empty() || !action.rules.empty())
    return false;
  // The positional parameters (positional_params(), without copying them).
  Views names;
  std::size_t n = 0;
  if (!spelling.positional.empty()) {
    if (spelling.positional.size() > kMaxSimple) return false;
    for (const std::string& name : spelling.positional) names[n++] = name;
  } else if (!action.body_param.empty()) {
    names[n++] = action.body_param;
  } else if (action.params.size() == 1) {
    names[n++] = action.params.front().name;
  } else {
    return false;  // takes no arguments: a note when some were written
  }
  // ARGS split at the first n-1 colons, each part trimmed (split_bracket_args()).
  Views parts;
  std::size_t m = 0;
  while (m + 1 < n) {
    const std::size_t colon = args.find(':');
    if (colon == std::string_view::npos) break;
    parts[m++] = ascii::trim(args.substr(0, colon));
    args.remove_prefix(colon + 1);
  }
  parts[m++] = ascii::trim(args);
  Params params;
  Views values;
  for (std::size_t i = 0; i < m; ++i)
    if (!accept(find_param(action, names[i]), parts[i], i, params, values)) return false;
  if (!all_required_given(action, params, m)) return false;
  write_valid(params, values, m, out);
  return true;
}

}  // namespace sigil::catalog
