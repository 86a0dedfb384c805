// Argument validation (spec section 9; brackets 3.3; JSON bodies 5.1-5.2; MCP 5.6).
//
// Turns what a model wrote (attributes, a body, bracket ARGS) into the `args` of a directive: canonical keys,
// converted values when valid, and what was written when invalid (9.4). Registry calls these; they need no
// registry, so tests and tools can validate against a lone ActionSpec.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/catalog/action_spec.h"
#include "sigil/parse/grammar.h"

namespace sigil::catalog {

// Note codes emitted by validation (parse::Note::code).
namespace note {
inline constexpr std::string_view kDuplicateKey = "duplicate-key";  // a key given twice; the last is kept
inline constexpr std::string_view kUnknownKey = "unknown-key";      // a key no parameter has; dropped
// An enum value not in the list, replaced by the fallback: "unknown-" + the parameter's name
// (`unknown-kind`).
inline constexpr std::string_view kUnknownEnumPrefix = "unknown-";
}  // namespace note

// A tag directive in `spelling` (a Dialect::Tag spelling of `action`): attributes in written order, then the
// body. Keys from the body come after the attributes, so a body value wins over an attribute (9.2).
parse::Validated validate_tag(const ActionSpec& action, const Spelling& spelling,
                              std::span<const parse::Attribute> attributes, const parse::Body& body);

// The common case of validate_tag, in place: attributes only (no body), each key a distinct string or enum
// parameter (or alias) whose value converts, every required parameter given, no presets or rules. Then
// writes what validate_tag returns into `out` with the arguments deferred (parse::Validated::args_deferred:
// no JSON built; build_args() gives validate_tag's object), reusing its storage, and returns true; otherwise
// returns false, and `out`, which may then hold part of a result, is for the caller to replace.
// The attributes are views (parse::AttributeRef), so a caller that read them in place copies nothing.
bool validate_tag_simple(const ActionSpec& action, const Spelling& spelling,
                         std::span<const parse::AttributeRef> attributes, const parse::Body& body,
                         parse::Validated& out);

// validate_tag_simple split for a caller that compiles its spellings once (the registry): whether `spelling`
// of `action` can take the flat path at all (a tag spelling, no presets, no rules, at most 32 parameters)
// and, if so, its required parameters as bits over action.params; then validate_tag_flat() is
// validate_tag_simple() for an absent body: no map, no string built, no note or error kept on the way.
std::optional<std::uint32_t> flat_required(const ActionSpec& action, const Spelling& spelling);
bool validate_tag_flat(const ActionSpec& action, std::uint32_t required,
                       std::span<const parse::AttributeRef> attributes, parse::Validated& out);

// validate_tag_flat() for one attribute with a value under a key that names `param` (a string or enum
// parameter of an action whose only required parameter, if any, it is): true with the same result, or
// false (`out` then for the caller to replace) where validate_tag_flat() would be false.
bool validate_one_flat(const ParamSpec& param, std::string_view value, parse::Validated& out);

// The common case of validate_bracket, in place: ARGS given for positional string or enum parameters that
// convert, every required parameter given, no presets or rules (REMEMBER, CALCULATE, SEARCH, ...). Then
// writes what validate_bracket returns into `out`, the arguments deferred as validate_tag_simple's, and
// returns true; otherwise returns false and leaves `out` as it was.
bool validate_bracket_simple(const ActionSpec& action, const Spelling& spelling, std::string_view args,
                             bool has_args, parse::Validated& out);

// A bracket directive: `args` exactly as written between `NAME:` and `]`; `has_args` false for `[NAME]`.
parse::Validated validate_bracket(const ActionSpec& action, const Spelling& spelling, std::string_view args,
                                  bool has_args);

// An MCP tag (5.6). `server` as configured, `tool` as written. Attributes become string entries of
// `arguments`, JSON object entries are kept as written; any key is accepted.
parse::Validated validate_mcp(std::string_view server, std::string_view tool,
                              std::span<const parse::Attribute> attributes, const parse::Body& body);

// ARGS split at the first n-1 colons, each part trimmed (3.3). Fewer than n parts when fewer colons were
// written; no parts for n == 0.
std::vector<std::string> split_bracket_args(std::string_view args, std::size_t n);

// Shape checks and conversions of 9.1, on values already trimmed.
bool is_duration(std::string_view s);  // ^\d+(\.\d+)?[mhd]$
bool is_datetime(std::string_view s);  // YYYY-MM-DD[ T]HH:MM(:SS)?(Z|[+-]HH:MM)?, fields in range
std::optional<bool> parse_boolean(std::string_view s);  // true false yes no on off 1 0, any case

}  // namespace sigil::catalog
