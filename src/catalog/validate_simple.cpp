// The common tag directive validated in place (validate.h: validate_tag_simple): what validate_tag would
// return, without its collector, conversion records and fresh argument object, so a caller that keeps one
// Validated does not allocate for it in the steady state.
#include <array>

#include "sigil/catalog/validate.h"
#include "sigil/text/ascii.h"

namespace sigil::catalog {

namespace ascii = text::ascii;

namespace {

// More attributes than this take the general path (no directive in the catalog has as many parameters).
constexpr std::size_t kMaxSimple = 8;

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

}  // namespace

bool validate_tag_simple(const ActionSpec& action, const Spelling& spelling,
                         std::span<const parse::Attribute> attributes, const parse::Body& body,
                         parse::Validated& out) {
  if (spelling.dialect != Dialect::Tag || body.kind != parse::Body::Kind::Absent ||
      !spelling.presets.empty() || !action.rules.empty() || attributes.size() > kMaxSimple)
    return false;
  std::array<const ParamSpec*, kMaxSimple> params{};
  std::array<std::string_view, kMaxSimple> values{};
  const std::size_t n = attributes.size();
  for (std::size_t i = 0; i < n; ++i) {
    const parse::Attribute& a = attributes[i];
    const ParamSpec* p = find_param(action, a.key);
    if (p == nullptr || !a.has_value) return false;  // an unknown key's note; a bare key
    if (p->type != ParamType::String && p->type != ParamType::Enum) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (params[j] == p) return false;  // a duplicate key's note
    if (!simple_value(*p, a.value, &values[i])) return false;
    params[i] = p;
  }
  for (const ParamSpec& p : action.params) {
    if (!p.required) continue;
    bool given = false;
    for (std::size_t i = 0; i < n && !given; ++i) given = params[i] == &p;
    if (!given) return false;  // a missing required parameter's error
  }

  // Valid: args holds the converted values under canonical names, in written order. When `out` already has
  // exactly these keys (the same action again), the values are assigned in place.
  bool same_keys = out.args.size() == n;
  for (std::size_t i = 0; same_keys && i < n; ++i)
    same_keys = (out.args.begin() + i)->key() == params[i]->name;
  if (same_keys) {
    for (std::size_t i = 0; i < n; ++i) {
      boost::json::value& v = (out.args.begin() + i)->value();
      if (v.is_string()) {
        v.get_string().assign(values[i]);
      } else {
        v = values[i];
      }
    }
  } else {
    out.args.clear();
    for (std::size_t i = 0; i < n; ++i) out.args.emplace(params[i]->name, values[i]);
  }
  out.valid = true;
  out.error.clear();
  out.notes.clear();
  return true;
}

}  // namespace sigil::catalog
