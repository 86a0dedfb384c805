#include "sigil/catalog/registry.h"

#include <array>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sigil/catalog/builtin_catalog.h"
#include "sigil/catalog/validate.h"
#include "sigil/text/ascii.h"

namespace sigil::catalog {

namespace ascii = text::ascii;
namespace {

using parse::BodyKind;
using parse::TagRole;

bool valid_tag_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = ascii::is_alnum(c) || c == '_' || c == '-' || c == '.' || c == ':';
    if (!ok) return false;
  }
  return true;
}

bool valid_bracket_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(ascii::is_upper(c) || ascii::is_digit(c) || c == '_')) return false;
  }
  return true;
}

[[noreturn]] void reject(std::string_view action, const std::string& why) {
  throw std::invalid_argument("sigil::catalog::Registry: action \"" + std::string(action) + "\": " + why);
}

parse::TagName fixed_tag(std::string_view name, TagRole role) {
  if (!valid_tag_name(name)) {
    throw std::invalid_argument("sigil::catalog::Registry: bad tag name \"" + std::string(name) +
                                "\" in options");
  }
  parse::TagName t;
  t.name = ascii::to_lower(name);
  t.role = role;
  t.body = BodyKind::None;
  return t;
}

}  // namespace

Registry::Registry(std::vector<ActionSpec> actions, RegistryOptions options) : options_(std::move(options)) {
  std::vector<parse::TagName> fixed;
  fixed.push_back(fixed_tag(options_.wrapper_tag, TagRole::Wrapper));
  for (const std::string& s : options_.sentinel_tags) fixed.push_back(fixed_tag(s, TagRole::Sentinel));
  for (const std::string& h : options_.hidden_tags) fixed.push_back(fixed_tag(h, TagRole::Hidden));
  for (const parse::TagName& t : fixed) {
    for (const parse::TagName& known : tag_names_) {
      if (known.name == t.name) {
        throw std::invalid_argument("sigil::catalog::Registry: tag name \"" + t.name + "\" configured twice");
      }
    }
    tag_names_.push_back(t);
  }
  for (ActionSpec& a : actions) add(std::move(a));
}

Registry Registry::builtin(RegistryOptions options) {
  return Registry(builtin_actions(), std::move(options));
}

void Registry::check(const ActionSpec& action) const {
  if (action.name.empty()) reject(action.name, "no canonical name");
  if (find_action(action.name) != nullptr)
    reject(action.name, "an action of this name is already registered");

  std::vector<std::string> keys;
  for (const ParamSpec& p : action.params) {
    std::vector<const std::string*> names{&p.name};
    for (const std::string& alias : p.aliases) names.push_back(&alias);
    for (const std::string* n : names) {
      if (n->empty()) reject(action.name, "a parameter name or alias is empty");
      for (const std::string& k : keys) {
        if (ascii::iequals(k, *n)) reject(action.name, "parameter key \"" + *n + "\" is used twice");
      }
      keys.push_back(*n);
    }
    if (p.type == ParamType::Enum && p.enum_values.empty()) {
      reject(action.name, "enum parameter \"" + p.name + "\" has no values");
    }
  }
  auto known = [&](std::string_view name) {
    for (const ParamSpec& p : action.params) {
      if (ascii::iequals(p.name, name)) return true;
    }
    return false;
  };
  if (!action.body_param.empty() && !known(action.body_param)) {
    reject(action.name, "body parameter \"" + action.body_param + "\" is not a parameter");
  }
  for (const ParamRule& rule : action.rules) {
    if (rule.params.empty()) reject(action.name, "a rule names no parameters");
    for (const std::string& n : rule.params) {
      if (!known(n)) reject(action.name, "rule parameter \"" + n + "\" is not a parameter");
    }
  }

  std::vector<std::string> new_tags, new_brackets;
  bool mcp = false;
  for (const Spelling& s : action.spellings) {
    for (const PresetParam& p : s.presets) {
      if (!known(p.name)) reject(action.name, "preset \"" + p.name + "\" is not a parameter");
    }
    switch (s.dialect) {
      case Dialect::Tag: {
        if (!valid_tag_name(s.name)) reject(action.name, "bad tag name \"" + s.name + "\"");
        std::string lower = ascii::to_lower(s.name);
        for (const parse::TagName& t : tag_names_) {
          if (t.name == lower) reject(action.name, "tag name \"" + s.name + "\" is already registered");
        }
        for (const std::string& t : new_tags) {
          if (t == lower) reject(action.name, "tag name \"" + s.name + "\" is given twice");
        }
        new_tags.push_back(lower);
        bool reads_text = s.body == BodyKind::Text || s.body == BodyKind::Path ||
                          s.body == BodyKind::Markup || s.body == BodyKind::Content;
        if (reads_text && action.body_param.empty()) {
          reject(action.name, "tag <" + s.name + "> has a body but the action has no body parameter");
        }
        break;
      }
      case Dialect::Bracket: {
        if (!valid_bracket_name(s.name)) {
          reject(action.name, "bad bracket name \"" + s.name + "\" (upper case A-Z, 0-9, _)");
        }
        if (bracket_spelling(s.name) >= 0) {
          reject(action.name, "bracket name \"" + s.name + "\" is already registered");
        }
        for (const std::string& b : new_brackets) {
          if (b == s.name) reject(action.name, "bracket name \"" + s.name + "\" is given twice");
        }
        new_brackets.push_back(s.name);
        std::vector<std::string> positional = positional_params(action, s);
        if (positional.empty() && !action.params.empty()) {
          reject(action.name, "bracket [" + s.name + "] does not say which parameters its ARGS fill");
        }
        for (const std::string& n : positional) {
          if (!known(n)) reject(action.name, "positional parameter \"" + n + "\" is not a parameter");
        }
        break;
      }
      case Dialect::Mcp:
        if (mcp || mcp_spelling_ >= 0) reject(action.name, "only one MCP spelling may be registered");
        mcp = true;
        break;
    }
  }
}

void Registry::add(ActionSpec action) {
  check(action);
  actions_.push_back(std::move(action));
  index(actions_.size() - 1);
}

void Registry::index(std::size_t action_index) {
  const ActionSpec& action = actions_[action_index];
  for (std::size_t i = 0; i < action.spellings.size(); ++i) {
    const Spelling& s = action.spellings[i];
    const int index = static_cast<int>(refs_.size());
    const std::optional<std::uint32_t> required = flat_required(action, s);
    refs_.push_back({action_index, i, required.has_value(), required.value_or(0)});
    infos_.push_back({action.name, action.interrupts, action.result_to == ResultTo::Inline});
    switch (s.dialect) {
      case Dialect::Tag: {
        parse::TagName t;
        t.name = ascii::to_lower(s.name);
        t.role = action.name == options_.say_action ? TagRole::Say : TagRole::Action;
        t.body = s.body;
        t.body_limit = effective_body_limit(action, s);
        t.spelling = index;
        t.has_required_params = needs_written_params(action, s);
        t.has_body_param = !action.body_param.empty();
        t.single_line = s.single_line;
        tag_names_.push_back(std::move(t));
        break;
      }
      case Dialect::Bracket: {
        parse::BracketName b;
        b.name = s.name;
        b.spelling = index;
        b.needs_argument = needs_written_params(action, s);
        bracket_names_.push_back(std::move(b));
        break;
      }
      case Dialect::Mcp:
        mcp_spelling_ = index;
        break;
    }
  }
}

const ActionSpec* Registry::find_action(std::string_view canonical_name) const {
  for (const ActionSpec& a : actions_) {
    if (a.name == canonical_name) return &a;
  }
  return nullptr;
}

std::size_t Registry::checked(int index) const {
  if (index < 0 || static_cast<std::size_t>(index) >= refs_.size()) {
    throw std::out_of_range("sigil::catalog::Registry: no spelling " + std::to_string(index));
  }
  return static_cast<std::size_t>(index);
}

const Spelling& Registry::spelling_spec(int index) const {
  const SpellingRef& r = refs_[checked(index)];
  return actions_[r.action].spellings[r.spelling];
}

const ActionSpec& Registry::action_of(int index) const { return actions_[refs_[checked(index)].action]; }

int Registry::tag_spelling(std::string_view name) const {
  for (const parse::TagName& t : tag_names_) {
    if (t.spelling >= 0 && ascii::iequals(t.name, name)) return t.spelling;
  }
  return -1;
}

int Registry::bracket_spelling(std::string_view name) const {
  for (const parse::BracketName& b : bracket_names_) {
    if (options_.brackets_case_insensitive ? ascii::iequals(b.name, name) : b.name == name) return b.spelling;
  }
  return -1;
}

std::size_t Registry::mcp_body_limit() const {
  if (mcp_spelling_ < 0) return kDefaultJsonBodyLimit;
  return effective_body_limit(action_of(mcp_spelling_), spelling_spec(mcp_spelling_));
}

const parse::SpellingInfo& Registry::spelling(int index) const {
  // Asked once per directive: the check inline, its throw out of line.
  if (index < 0 || static_cast<std::size_t>(index) >= infos_.size()) checked(index);
  return infos_[static_cast<std::size_t>(index)];
}

std::vector<int> Registry::spellings_of(std::string_view action) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < refs_.size(); ++i) {
    if (actions_[refs_[i].action].name == action) out.push_back(static_cast<int>(i));
  }
  return out;
}

parse::Validated Registry::validate_tag(int spelling, std::span<const parse::Attribute> attributes,
                                        const parse::Body& body) const {
  return catalog::validate_tag(action_of(spelling), spelling_spec(spelling), attributes, body);
}

void Registry::validate_tag_into(int spelling, std::span<const parse::Attribute> attributes,
                                 const parse::Body& body, parse::Validated& out) const {
  const ActionSpec& action = action_of(spelling);
  const Spelling& spec = spelling_spec(spelling);
  // Views of the attributes for the simple path (which takes no more than kMaxDeferredArgs of them).
  std::array<parse::AttributeRef, parse::kMaxDeferredArgs> refs;
  const bool viewed = attributes.size() <= refs.size();
  if (viewed) {
    for (std::size_t i = 0; i < attributes.size(); ++i)
      refs[i] = {attributes[i].key, attributes[i].value, attributes[i].has_value};
  }
  if (!viewed ||
      !catalog::validate_tag_simple(action, spec, std::span(refs.data(), attributes.size()), body, out))
    out = catalog::validate_tag(action, spec, attributes, body);
}

void Registry::validate_tag_refs_into(int spelling, std::span<const parse::AttributeRef> attributes,
                                      parse::Validated& out) const {
  // Once per directive read in place: one bounds check for both lookups; the general path out of line, so
  // that the common directive's call sets up no frame for it.
  if (spelling < 0 || static_cast<std::size_t>(spelling) >= refs_.size()) checked(spelling);  // throws
  const SpellingRef& r = refs_[static_cast<std::size_t>(spelling)];
  if (r.flat && catalog::validate_tag_flat(actions_[r.action], r.required, attributes, out)) return;
  validate_tag_refs_general(r, attributes, out);
}

parse::OneValueTag Registry::one_value_tag(int spelling, std::string_view key) const {
  const SpellingRef& r = refs_[checked(spelling)];
  if (!r.flat) return {spelling, nullptr};
  const ActionSpec& action = actions_[r.action];
  const ParamSpec* p = find_param(action, key);
  if (p == nullptr || (p->type != ParamType::String && p->type != ParamType::Enum))
    return {spelling, nullptr};
  // validate_tag_flat()'s check of the required parameters, decided by the key alone.
  const std::uint32_t bit = std::uint32_t{1} << (p - action.params.data());
  if ((r.required & ~bit) != 0) return {spelling, nullptr};
  return {spelling, p};
}

void Registry::validate_one_value_into(const parse::OneValueTag& t, std::string_view key,
                                       std::string_view value, parse::Validated& out) const {
  if (t.resolved != nullptr &&
      catalog::validate_one_flat(*static_cast<const ParamSpec*>(t.resolved), value, out))
    return;
  const parse::AttributeRef attribute{key, value, true};
  validate_tag_refs_into(t.spelling, std::span<const parse::AttributeRef>(&attribute, 1), out);
}

void Registry::validate_tag_refs_general(const SpellingRef& r,
                                         std::span<const parse::AttributeRef> attributes,
                                         parse::Validated& out) const {
  // One absent body for all (a temporary Body cost its JSON value's construction and destruction each time).
  static const parse::Body kAbsent{};
  const ActionSpec& action = actions_[r.action];
  out =
      catalog::validate_tag(action, action.spellings[r.spelling], parse::to_attributes(attributes), kAbsent);
}

parse::Validated Registry::validate_bracket(int spelling, std::string_view args, bool has_args) const {
  return catalog::validate_bracket(action_of(spelling), spelling_spec(spelling), args, has_args);
}

void Registry::validate_bracket_into(int spelling, std::string_view args, bool has_args,
                                     parse::Validated& out) const {
  const ActionSpec& action = action_of(spelling);
  const Spelling& spec = spelling_spec(spelling);
  if (!catalog::validate_bracket_simple(action, spec, args, has_args, out))
    out = catalog::validate_bracket(action, spec, args, has_args);
}

parse::Validated Registry::validate_mcp(std::string_view server, std::string_view tool,
                                        std::span<const parse::Attribute> attributes,
                                        const parse::Body& body) const {
  return catalog::validate_mcp(server, tool, attributes, body);
}

}  // namespace sigil::catalog
