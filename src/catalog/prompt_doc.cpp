#include "sigil/catalog/prompt_doc.h"

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sigil/parse/json_text.h"
#include "sigil/text/ascii.h"

namespace sigil::catalog {

namespace ascii = text::ascii;
namespace {

namespace json = boost::json;
using parse::BodyKind;

constexpr std::string_view kTags = "Tags";
constexpr std::string_view kBrackets = "Brackets";
constexpr std::string_view kJson = "JSON bodies";
constexpr std::string_view kSay = "Say blocks";
constexpr std::string_view kGroups[] = {kTags, kBrackets, kJson, kSay};

// Hand-written examples for the built-in spellings: realistic values teach a model better than generated
// ones. Keyed by action and spelling so a user action that reuses a name never gets one that does not fit;
// anything not listed gets a generated example. The tests parse every one.
struct BuiltinExample {
  std::string_view action;
  std::string_view spelling;
  std::string_view text;
};

constexpr BuiltinExample kBuiltinExamples[] = {
    {"react", "react", R"(<react emoji="👍"/>)"},
    {"send-file", "send-file", R"(<send-file path="/files/report.pdf" caption="This week's report"/>)"},
    {"send-file", "file", R"(<file kind="document">/files/report.pdf</file>)"},
    {"voice", "voice", "<voice>Good morning! Here is your summary.</voice>"},
    {"send-message", "send-message",
     R"(<send-message channel="telegram" chat="family">Dinner is at 7.</send-message>)"},
    {"send-message", "sendTelegram", R"(<sendTelegram>{"text": "Dinner is at 7."}</sendTelegram>)"},
    {"say", "say", "<say>Done, the report is attached.</say>"},
    {"remember", "REMEMBER", "[REMEMBER:prefers tea to coffee]"},
    {"remember", "remember", "<remember>Prefers tea to coffee</remember>"},
    {"forget", "FORGET_THIS", "[FORGET_THIS:prefers tea to coffee]"},
    {"correct", "CORRECT", "[CORRECT:prefers tea:prefers green tea]"},
    {"setMemory", "setMemory", R"(<setMemory>{"itemId": "trip", "value": {"city": "Lisbon"}}</setMemory>)"},
    {"deleteItem", "deleteItem", R"(<deleteItem>{"itemId": "trip"}</deleteItem>)"},
    {"cleanupMemory", "cleanupMemory", "<cleanupMemory/>"},
    {"archiveItems", "archiveItems", R"(<archiveItems>["trip", "notes"]</archiveItems>)"},
    {"searchArchive", "searchArchive",
     R"(<searchArchive>{"query": "trip to Lisbon", "topK": 5}</searchArchive>)"},
    {"searchArchive", "SEARCH_EPISODIC", "[SEARCH_EPISODIC:trip to Lisbon]"},
    {"request-tier", "REQUEST_TIER", "[REQUEST_TIER:2:trip planning]"},
    {"calculate", "CALCULATE", "[CALCULATE:342*15]"},
    {"calculate", "calculate", "<calculate>(12.5+7.5)*3</calculate>"},
    {"search", "SEARCH", "[SEARCH:weather in Lisbon today]"},
    {"search", "googleSearch", R"(<googleSearch>{"query": "weather in Lisbon today"}</googleSearch>)"},
    {"fetch-page", "webpageToText", R"(<webpageToText>{"url": "https://example.com/news"}</webpageToText>)"},
    {"fetch-page", "FETCH", "[FETCH:https://example.com/news]"},
    {"scheduleTask", "scheduleTask",
     R"(<scheduleTask>{"message": "Remind the user to call the dentist", "delay": "2h"}</scheduleTask>)"},
    {"getScheduledTasks", "getScheduledTasks", "<getScheduledTasks/>"},
    {"deleteScheduledTask", "deleteScheduledTask",
     R"(<deleteScheduledTask>{"id": "task-1"}</deleteScheduledTask>)"},
    {"publishWebPage", "publishWebPage",
     "<publishWebPage><h1>Trip plan</h1><p>Day 1: Belém</p></publishWebPage>"},
    {"command", "COMMAND", "[COMMAND:backup]"},
};

// One action in one group, with its spellings there (registry order).
struct Entry {
  std::string_view group;
  const ActionSpec* action = nullptr;
  std::vector<const Spelling*> spellings;
};

bool has_name(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_say_action(const Registry& registry, const ActionSpec& action) {
  return action.name == registry.options().say_action;
}

// The group a spelling is taught in, or empty when it is not taught.
std::string_view group_of(const Registry& registry, const PromptOptions& options, const ActionSpec& action,
                          const Spelling& spelling) {
  switch (spelling.dialect) {
    case Dialect::Bracket:
      return kBrackets;
    case Dialect::Mcp:
      // Without a configured server no MCP tag counts (5.6): teaching one would teach text.
      return registry.options().mcp_servers.empty() ? std::string_view{} : kJson;
    case Dialect::Tag:
      break;
  }
  if (is_say_action(registry, action)) return options.say_mode ? kSay : std::string_view{};
  if (spelling.body == BodyKind::Json) return kJson;
  if (spelling.body == BodyKind::Path) {
    // File tags belong with say blocks (section 6); without say mode they are taught only when the action
    // has no other spelling, so a model sees one way to send a file, not two.
    if (options.say_mode) return kSay;
    for (const Spelling& other : action.spellings) {
      if (other.dialect != Dialect::Mcp && other.body != BodyKind::Path) return {};
    }
  }
  return kTags;
}

std::vector<Entry> entries(const Registry& registry, const PromptOptions& options) {
  std::vector<Entry> out;
  for (std::string_view group : kGroups) {
    std::vector<Entry> in_group;
    for (const ActionSpec& action : registry.actions()) {
      if (!prompt_includes(options, action.name)) continue;
      Entry entry{group, &action, {}};
      for (const Spelling& spelling : action.spellings) {
        if (group_of(registry, options, action, spelling) == group) entry.spellings.push_back(&spelling);
      }
      if (entry.spellings.empty()) continue;
      // In say mode the say block is what everything else hangs on: teach it first.
      if (group == kSay && is_say_action(registry, action)) {
        in_group.insert(in_group.begin(), std::move(entry));
      } else {
        in_group.push_back(std::move(entry));
      }
    }
    for (Entry& e : in_group) out.push_back(std::move(e));
  }
  return out;
}

const PresetParam* preset_of(const Spelling& spelling, std::string_view param) {
  for (const PresetParam& p : spelling.presets) {
    if (ascii::iequals(p.name, param)) return &p;
  }
  return nullptr;
}

bool required_in(const ParamSpec& param, const Spelling& spelling) {
  return param.required && preset_of(spelling, param.name) == nullptr;
}

// The parameters a model may write in this spelling: brackets fill their positional ones (3.3); tags take
// any parameter but those the spelling fixes (9.6).
std::vector<const ParamSpec*> params_of(const ActionSpec& action, const Spelling& spelling) {
  std::vector<const ParamSpec*> out;
  if (spelling.dialect == Dialect::Bracket) {
    for (const std::string& name : positional_params(action, spelling)) {
      if (const ParamSpec* p = find_param(action, name)) out.push_back(p);
    }
    return out;
  }
  for (const ParamSpec& p : action.params) {
    const PresetParam* preset = preset_of(spelling, p.name);
    if (preset == nullptr || !preset->fixed) out.push_back(&p);
  }
  return out;
}

// Parameters shown in a tag's syntax line: the required ones, else one of each exactly-one rule, so the line
// reads as a complete directive.
std::vector<const ParamSpec*> syntax_params(const ActionSpec& action, const Spelling& spelling) {
  std::vector<const ParamSpec*> out;
  for (const ParamSpec& p : action.params) {
    if (required_in(p, spelling)) out.push_back(&p);
  }
  for (const ParamRule& rule : action.rules) {
    if (rule.kind != ParamRule::Kind::ExactlyOne || rule.params.empty()) continue;
    if (const ParamSpec* p = find_param(action, rule.params.front())) {
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

bool quoted_in_json(ParamType type) {
  return type == ParamType::String || type == ParamType::Enum || type == ParamType::Duration ||
         type == ParamType::Datetime;
}

std::string mcp_name(std::string_view server, std::string_view tool) {
  return "mcp_" + std::string(server) + "_" + std::string(tool);
}

// A tool's description for a one-line listing: its first line, capped.
std::string short_description(std::string_view text) {
  constexpr std::size_t kMax = 200;
  text = text.substr(0, text.find('\n'));
  text = ascii::trim(text);
  if (text.size() <= kMax) return std::string(text);
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside UTF-8
  return std::string(text.substr(0, cut)) + "…";
}

// The tool's arguments as the prompt shows them: `{"message": string, "count"?: integer}` (? = optional).
std::string mcp_arguments_line(const json::object& schema) {
  const auto* props = schema.if_contains("properties");
  if (props == nullptr || !props->is_object() || props->get_object().empty()) return "{}";
  const auto* required = schema.if_contains("required");
  auto is_required = [&](std::string_view name) {
    if (required == nullptr || !required->is_array()) return false;
    for (const json::value& r : required->get_array()) {
      if (r.is_string() && r.get_string() == name) return true;
    }
    return false;
  };
  std::string out;
  for (const auto& kv : props->get_object()) {
    out += out.empty() ? "{" : ", ";
    out += "\"" + std::string(kv.key()) + "\"" + (is_required(kv.key()) ? "" : "?") + ": ";
    const json::object* p = kv.value().if_object();
    const json::value* type = p != nullptr ? p->if_contains("type") : nullptr;
    const json::value* values = p != nullptr ? p->if_contains("enum") : nullptr;
    if (values != nullptr && values->is_array()) {
      std::string list;
      for (const json::value& v : values->get_array())
        list += (list.empty() ? "" : " | ") + json::serialize(v);
      out += list;
    } else {
      out += type != nullptr && type->is_string() ? std::string(type->get_string()) : "any";
    }
  }
  return out + "}";
}

// Sample arguments for the example line: each required property with a value of its type.
std::string mcp_sample_arguments(const json::object& schema) {
  json::object sample;
  const auto* props = schema.if_contains("properties");
  const auto* required = schema.if_contains("required");
  if (props == nullptr || !props->is_object() || required == nullptr || !required->is_array()) return "{}";
  for (const json::value& r : required->get_array()) {
    if (!r.is_string()) continue;
    const json::value* p = props->get_object().if_contains(r.get_string());
    const json::object* po = p != nullptr ? p->if_object() : nullptr;
    const json::value* values = po != nullptr ? po->if_contains("enum") : nullptr;
    const json::value* type = po != nullptr ? po->if_contains("type") : nullptr;
    const std::string_view t =
        type != nullptr && type->is_string() ? std::string_view(type->get_string()) : "";
    json::value v = "example";
    if (values != nullptr && values->is_array() && !values->get_array().empty())
      v = values->get_array().front();
    else if (t == "integer" || t == "number")
      v = 1;
    else if (t == "boolean")
      v = true;
    else if (t == "array")
      v = json::array();
    else if (t == "object")
      v = json::object();
    sample[r.get_string()] = std::move(v);
  }
  return parse::json_text(sample);
}

std::string mcp_tool_line(const McpToolDoc& tool) {
  const std::string name = mcp_name(tool.server, tool.name);
  std::string line = "  - <" + name + ">" + mcp_arguments_line(tool.input_schema) + "</" + name + ">";
  if (std::string d = short_description(tool.description); !d.empty()) line += ": " + d;
  return line + "\n";
}

}  // namespace

std::string mcp_tool_summary(const McpToolDoc& tool) {
  std::string line = tool.server + "/" + tool.name + " " + mcp_arguments_line(tool.input_schema);
  if (std::string d = short_description(tool.description); !d.empty()) line += ": " + d;
  return line;
}

namespace {

std::string syntax(const ActionSpec& action, const Spelling& spelling) {
  if (spelling.dialect == Dialect::Mcp) return "<mcp_SERVER_TOOL>{…}</mcp_SERVER_TOOL>";
  if (spelling.dialect == Dialect::Bracket) {
    std::string s = "[" + spelling.name;
    for (const std::string& name : positional_params(action, spelling)) s += ":" + name;
    return s + "]";
  }
  std::vector<const ParamSpec*> shown = syntax_params(action, spelling);
  const std::string close = "</" + spelling.name + ">";
  if (spelling.body == BodyKind::Json) {
    if (action.params.empty()) return "<" + spelling.name + "/>";
    std::string body;
    for (const ParamSpec* p : shown) {
      body += body.empty() ? "{" : ", ";
      body += "\"" + p->name + "\": ";
      body += p->type == ParamType::Array ? "[…]" : quoted_in_json(p->type) ? "\"…\"" : "…";
    }
    body += body.empty() ? "{…}" : "}";
    return "<" + spelling.name + ">" + body + close;
  }
  std::string s = "<" + spelling.name;
  const bool has_body = spelling.body != BodyKind::None && !action.body_param.empty();
  for (const ParamSpec* p : shown) {
    if (has_body && p->name == action.body_param) continue;
    s += " " + p->name + "=\"…\"";
  }
  if (!has_body) return s + "/>";
  return s + ">" + action.body_param + close;
}

std::string type_note(const ParamSpec& p) {
  switch (p.type) {
    case ParamType::String:
      return {};
    case ParamType::Enum: {
      std::vector<std::string> values;
      for (const EnumValue& v : p.enum_values) {
        if (!has_name(values, v.canonical)) values.push_back(v.canonical);
      }
      std::string s = "one of ";
      for (std::size_t i = 0; i < values.size(); ++i) s += (i == 0 ? "" : "|") + values[i];
      return s;
    }
    case ParamType::Boolean:
      return "true/false";
    case ParamType::Array:
      return p.element == ParamType::Json ? "JSON array"
                                          : "array of " + std::string(to_string(p.element)) + "s";
    case ParamType::Json:
      return "any JSON";
    default:
      return std::string(to_string(p.type));
  }
}

std::string param_line(const std::vector<const ParamSpec*>& params, const Spelling& spelling) {
  std::string line;
  for (const ParamSpec* p : params) {
    if (!line.empty()) line += " · ";
    line += p->name;
    if (required_in(*p, spelling)) line += "*";
    if (std::string note = type_note(*p); !note.empty()) line += " (" + note + ")";
    if (!p->description.empty()) line += ": " + p->description;
    if (const PresetParam* preset = preset_of(spelling, p->name)) {
      line += preset->value.is_null() ? "; default: the configured one"
                                      : "; default " + parse::json_text(preset->value);
    } else if (!p->default_value.is_null()) {
      line += "; default " + parse::json_text(p->default_value);
    }
  }
  return line;
}

std::string rules_line(const ActionSpec& action, const std::vector<const ParamSpec*>& shown) {
  std::string line;
  for (const ParamRule& rule : action.rules) {
    // A rule over parameters this spelling cannot write is not the model's to follow here.
    bool all_shown = true;
    for (const std::string& name : rule.params) {
      const ParamSpec* p = find_param(action, name);
      all_shown = all_shown && std::find(shown.begin(), shown.end(), p) != shown.end();
    }
    if (!all_shown || rule.params.empty()) continue;
    std::string names;
    for (std::size_t i = 0; i < rule.params.size(); ++i) {
      names += i == 0 ? ""
                      : (i + 1 == rule.params.size()
                             ? (rule.kind == ParamRule::Kind::ExactlyOne ? " or " : " and ")
                             : ", ");
      names += rule.params[i];
    }
    if (!line.empty()) line += " ";
    line += rule.kind == ParamRule::Kind::ExactlyOne ? "Give exactly one of " + names + "."
                                                     : "Give " + names + " together or neither.";
  }
  return line;
}

// A value of the parameter's type that validation accepts, for generated examples.
json::value sample_value(const ParamSpec& p) {
  switch (p.type) {
    case ParamType::String:
    case ParamType::Json:
      return "example";
    case ParamType::Integer:
      return 1;
    case ParamType::Number:
      return 1.5;
    case ParamType::Boolean:
      return true;
    case ParamType::Enum:
      return p.enum_values.empty() ? json::value("example") : json::value(p.enum_values.front().canonical);
    case ParamType::Duration:
      return "30m";
    case ParamType::Datetime:
      return "2030-01-01 09:00";
    case ParamType::Array: {
      ParamSpec element;
      element.type = p.element == ParamType::Array ? ParamType::Json : p.element;
      return json::array{sample_value(element)};
    }
  }
  return "example";
}

// The value as a model writes it in an attribute, a text body or bracket ARGS.
std::string as_text(const json::value& v) {
  return v.is_string() ? std::string(v.get_string()) : parse::json_text(v);
}

std::string generated_example(const Registry& registry, const ActionSpec& action, const Spelling& spelling) {
  if (spelling.dialect == Dialect::Mcp) {
    const auto& tools = registry.options().mcp_tools;
    if (!tools.empty()) {
      const std::string name = mcp_name(tools.front().server, tools.front().name);
      return "<" + name + ">" + mcp_sample_arguments(tools.front().input_schema) + "</" + name + ">";
    }
    const std::string name = mcp_name(registry.options().mcp_servers.front(), "search");
    return "<" + name + ">{\"query\": \"example\"}</" + name + ">";
  }
  if (spelling.dialect == Dialect::Bracket) {
    std::string s = "[" + spelling.name;
    for (const std::string& name : positional_params(action, spelling)) {
      const ParamSpec* p = find_param(action, name);
      s += ":" + (p != nullptr ? as_text(sample_value(*p)) : std::string("example"));
    }
    return s + "]";
  }
  std::vector<const ParamSpec*> shown = syntax_params(action, spelling);
  const std::string close = "</" + spelling.name + ">";
  if (spelling.body == BodyKind::Json) {
    if (shown.empty()) return "<" + spelling.name + "/>";
    json::object body;
    for (const ParamSpec* p : shown) body[p->name] = sample_value(*p);
    return "<" + spelling.name + ">" + parse::json_text(body) + close;
  }
  std::string s = "<" + spelling.name;
  const bool has_body = spelling.body != BodyKind::None && !action.body_param.empty();
  std::string body_text = "example";
  for (const ParamSpec* p : shown) {
    if (has_body && p->name == action.body_param) {
      body_text = as_text(sample_value(*p));
      continue;
    }
    // JSON text in an attribute holds double quotes: single quotes around it then (2.3).
    const std::string value = as_text(sample_value(*p));
    const char quote = value.find('"') == std::string::npos ? '"' : '\'';
    s += " " + p->name + "=" + quote + value + quote;
  }
  if (!has_body) return s + "/>";
  return s + ">" + body_text + close;
}

std::string example_for(const Registry& registry, const ActionSpec& action, const Spelling& spelling) {
  for (const BuiltinExample& e : kBuiltinExamples) {
    if (e.action == action.name && e.spelling == spelling.name) return std::string(e.text);
  }
  return generated_example(registry, action, spelling);
}

std::string_view group_intro(std::string_view group) {
  if (group == kBrackets) return "Arguments are separated by colons; the last one may itself contain colons.";
  if (group == kJson) return "The body is JSON as shown; a tag without parameters may be written <name/>.";
  if (group == kSay) {
    return "Say mode is on: only text inside <say>…</say> reaches the user, each block as its own message; "
           "text outside say blocks is hidden. Directives work inside and outside say blocks.";
  }
  return "Quote attribute values.";
}

void render_entry(const Registry& registry, const Entry& entry, std::string& out) {
  const ActionSpec& action = *entry.action;
  const Spelling& first = *entry.spellings.front();
  out += "- ";
  for (std::size_t i = 0; i < entry.spellings.size(); ++i) {
    out += (i == 0 ? "" : " or ") + syntax(action, *entry.spellings[i]);
  }
  out += ": ";
  if (is_say_action(registry, action)) {
    out += "one message to the user.\n";  // the say action's parameter is its body: nothing more to teach
  } else if (first.dialect == Dialect::Mcp) {
    out += action.summary + ". SERVER is one of: ";
    const auto& servers = registry.options().mcp_servers;
    for (std::size_t i = 0; i < servers.size(); ++i) out += (i == 0 ? "" : ", ") + servers[i];
    out += "; TOOL is one of its tools, the body its arguments. The result comes back to you.\n";
    for (const McpToolDoc& tool : registry.options().mcp_tools) out += mcp_tool_line(tool);
  } else {
    out += action.summary + ".";
    for (const PresetParam& preset : first.presets) {
      if (preset.fixed) out += " Always " + preset.name + "=" + as_text(preset.value) + ".";
    }
    if (entry.group == kSay && first.body == BodyKind::Path) out += " Sent with your last say block.";
    if (action.interrupts) {
      out += " Write it last: your reply stops there; the result comes back to you.";
    } else if (action.result_to == ResultTo::Model) {
      out += " The result comes back to you.";
    }
    out += "\n";
    std::vector<const ParamSpec*> params = params_of(action, first);
    if (!params.empty()) out += "  " + param_line(params, first) + "\n";
    if (std::string rules = rules_line(action, params); !rules.empty()) out += "  " + rules + "\n";
  }
  out += "  Example: " + example_for(registry, action, first) + "\n";
}

}  // namespace

bool prompt_includes(const PromptOptions& options, std::string_view action) {
  for (const std::string& name : options.denied) {
    if (name == action) return false;
  }
  if (options.allowed.empty()) return true;
  for (const std::string& name : options.allowed) {
    if (name == action) return true;
  }
  return false;
}

std::string prompt_section(const Registry& registry, const PromptOptions& options) {
  const std::vector<Entry> all = entries(registry, options);
  if (all.empty()) return {};
  std::string out =
      "## Actions\n"
      "You can act by writing directives in your reply. Their markup is removed from what the user sees; "
      "they run once your reply is read, and failures are reported back to you. Write them in plain text, "
      "never inside code blocks or `inline code`, where they are shown as written. Use only these "
      "spellings. * marks a required parameter.\n";
  std::string_view group;
  for (const Entry& entry : all) {
    if (entry.group != group) {
      group = entry.group;
      out += "\n### " + std::string(group) + "\n" + std::string(group_intro(group)) + "\n";
    }
    render_entry(registry, entry, out);
  }
  return out;
}

std::vector<PromptExample> prompt_examples(const Registry& registry, const PromptOptions& options) {
  std::vector<PromptExample> out;
  for (const Entry& entry : entries(registry, options)) {
    out.push_back({std::string(entry.group), entry.action->name,
                   example_for(registry, *entry.action, *entry.spellings.front())});
  }
  return out;
}

}  // namespace sigil::catalog
