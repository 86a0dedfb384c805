#include "sigil/actions/mcp_elicitation.h"

#include <boost/json.hpp>
#include <cstdint>

#include "sigil/actions/mcp_schema.h"
#include "sigil/text/enum_names.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

// The server's message is quoted in the note; a long one is cut (the note is one line of a result).
constexpr std::size_t kQuotedMessage = 200;

std::string quoted_message(const json::object& params) {
  const auto* m = params.if_contains("message");
  std::string text = m != nullptr && m->is_string() ? std::string(m->get_string()) : std::string();
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (text.size() > kQuotedMessage) {
    std::size_t cut = kQuotedMessage;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // whole characters
    text = text.substr(0, cut) + "…";
  }
  return json::serialize(json::value(text));
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::optional<double> number_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->to_number<double>();
}

// `value` is one of the `const`s listed under `key` (oneOf / anyOf: the titled enums of SEP-1330).
bool among_consts(const json::object& schema, std::string_view key, const json::value& value) {
  const auto* list = schema.if_contains(key);
  if (list == nullptr || !list->is_array()) return true;  // no such list: nothing to check
  for (const json::value& option : list->get_array()) {
    const auto* o = option.if_object();
    const auto* c = o != nullptr ? o->if_contains("const") : nullptr;
    if (c != nullptr && *c == value) return true;
  }
  return false;
}

// What the generic checker (type, enum, items) leaves out, for the primitive fields a form may hold.
Status<std::string> check_field(const std::string& name, const json::object& field,
                                const json::value& value) {
  if (auto fits = check_mcp_arguments(field, value); !fits) {
    std::string why = fits.error();
    if (why.rfind("arguments", 0) == 0) why = name + why.substr(9);
    return why;
  }
  if (value.is_string()) {
    const std::size_t n = code_points(value.get_string());
    if (auto min = number_of(field, "minLength"); min && static_cast<double>(n) < *min)
      return name + " is shorter than minLength";
    if (auto max = number_of(field, "maxLength"); max && static_cast<double>(n) > *max)
      return name + " is longer than maxLength";
    if (!among_consts(field, "oneOf", value)) return name + " is none of the oneOf choices";
  }
  if (value.is_number()) {
    const double d = value.to_number<double>();
    if (auto min = number_of(field, "minimum"); min && d < *min) return name + " is below its minimum";
    if (auto max = number_of(field, "maximum"); max && d > *max) return name + " is above its maximum";
  }
  if (value.is_array()) {
    const auto n = static_cast<double>(value.get_array().size());
    if (auto min = number_of(field, "minItems"); min && n < *min) return name + " has fewer than minItems";
    if (auto max = number_of(field, "maxItems"); max && n > *max) return name + " has more than maxItems";
    const auto* items = field.if_contains("items");
    if (items != nullptr && items->is_object()) {
      for (const json::value& item : value.get_array()) {
        if (!among_consts(items->get_object(), "anyOf", item))
          return name + " holds a value of no anyOf choice";
      }
    }
  }
  return {};
}

McpElicitationAnswer with_defaults(const json::object& schema, const std::string& asked) {
  json::object content;
  const auto* properties = schema.if_contains("properties");
  if (properties != nullptr && properties->is_object()) {
    for (const auto& [key, field] : properties->get_object()) {
      const auto* f = field.if_object();
      const auto* d = f != nullptr ? f->if_contains("default") : nullptr;
      if (d == nullptr) continue;
      const std::string name = std::string(key);
      if (auto fits = check_field(name, *f, *d); !fits) {
        return {{{"action", "decline"}},
                "the server asked " + asked + "; sigil declined: the default of " + fits.error() +
                    " (elicitation = \"defaults\")"};
      }
      content[key] = *d;
    }
  }
  if (const auto* required = schema.if_contains("required"); required != nullptr && required->is_array()) {
    for (const json::value& r : required->get_array()) {
      if (r.is_string() && !content.contains(r.get_string())) {
        return {{{"action", "decline"}},
                "the server asked " + asked + "; sigil declined: the required field \"" +
                    std::string(r.get_string()) + "\" has no default (elicitation = \"defaults\")"};
      }
    }
  }
  std::string note = "the server asked " + asked +
                     "; sigil accepted with the requested schema's defaults: " + json::serialize(content) +
                     " (elicitation = \"defaults\")";
  return {{{"action", "accept"}, {"content", std::move(content)}}, std::move(note)};
}

}  // namespace

namespace {
constexpr text::EnumNames<McpElicitationPolicy::defaults> kPolicyNames{{"decline", "cancel", "defaults"},
                                                                       "decline"};
}  // namespace

std::optional<McpElicitationPolicy> parse_mcp_elicitation_policy(std::string_view text) {
  return kPolicyNames.parse(text);
}

std::string_view to_string(McpElicitationPolicy policy) { return kPolicyNames.name(policy); }

sigil::Result<McpElicitationAnswer, std::string> answer_mcp_elicitation(const json::object& params,
                                                                        McpElicitationPolicy policy) {
  if (const auto* mode = params.if_contains("mode"); mode != nullptr && *mode != "form")
    return std::string("only form-mode elicitation is supported by this client (no URL mode)");
  const auto* schema = params.if_contains("requestedSchema");
  if (schema == nullptr || !schema->is_object())
    return std::string("a form-mode elicitation needs a requestedSchema object");
  const std::string asked = quoted_message(params);
  switch (policy) {
    case McpElicitationPolicy::cancel:
      return McpElicitationAnswer{
          {{"action", "cancel"}},
          "the server asked " + asked + "; sigil cancelled (elicitation = \"cancel\")"};
    case McpElicitationPolicy::defaults:
      return with_defaults(schema->get_object(), asked);
    case McpElicitationPolicy::decline:
      break;
  }
  return McpElicitationAnswer{
      {{"action", "decline"}},
      "the server asked " + asked +
          "; sigil declined (elicitation = \"decline\": nobody answers forms in a turn)"};
}

}  // namespace sigil::actions
