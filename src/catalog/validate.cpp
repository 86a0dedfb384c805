#include "sigil/catalog/validate.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <system_error>
#include <utility>

#include "sigil/parse/json_text.h"
#include "sigil/text/ascii.h"

namespace sigil::catalog {

namespace ascii = text::ascii;
namespace {

namespace json = boost::json;
using parse::Attribute;
using parse::Body;
using parse::Note;
using parse::Validated;

// ------------------------------------------------------------------------------------------ value helpers

std::string quoted(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out += '"';
  out += name;
  out += '"';
  return out;
}

// A written value for an error message: JSON-quoted, cut to a readable length at a UTF-8 boundary.
std::string shown(const json::value& v) {
  constexpr std::size_t kMax = 60;
  std::string s = parse::json_text(v);
  if (s.size() <= kMax) return s;
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  s += "…";
  return s;
}

// Shortest text that reads back as the same double.
std::string number_text(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  if (ec != std::errc()) return json::serialize(json::value(d));
  return std::string(buf, end);
}

bool is_integer_syntax(std::string_view s) {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s) {
    if (!ascii::is_digit(c)) return false;
  }
  return true;
}

// A number written as text: an integer when it has integer syntax and fits, a finite double otherwise.
std::optional<json::value> parse_number(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) return std::nullopt;
  }
  if (s.empty()) return std::nullopt;
  if (is_integer_syntax(s)) {
    std::int64_t i = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc() && end == s.data() + s.size()) return json::value(i);
  }
  // from_chars also reads `inf` and `nan`; only digits, sign, point and exponent are numbers here.
  for (char c : s) {
    if (!ascii::is_digit(c) && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E') return std::nullopt;
  }
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return std::nullopt;
  return json::value(d);
}

std::optional<std::int64_t> integral(double d) {
  // 2^63 is exactly representable; every double below it in magnitude converts without overflow.
  constexpr double kLimit = 9223372036854775808.0;
  if (!std::isfinite(d) || d != std::trunc(d) || d >= kLimit || d < -kLimit) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::optional<json::value> to_integer(const json::value& v) {
  if (v.is_int64()) return v;
  if (v.is_uint64()) {
    if (v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return json::value(static_cast<std::int64_t>(v.get_uint64()));
    }
    return v;
  }
  if (v.is_double()) {
    if (auto i = integral(v.get_double())) return json::value(*i);
    return std::nullopt;
  }
  if (v.is_string()) {
    auto n = parse_number(ascii::trim(v.get_string()));
    if (!n) return std::nullopt;
    return to_integer(*n);
  }
  return std::nullopt;
}

std::optional<std::string> to_text(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  if (v.is_double()) return number_text(v.get_double());
  return std::nullopt;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n) {
  if (pos + n > s.size()) return false;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!ascii::is_digit(s[i])) return false;
  }
  return true;
}

int field(std::string_view s, std::size_t pos, std::size_t n) {
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

// ------------------------------------------------------------------------------------------ conversion

struct Converted {
  enum class State : unsigned char { Ok, Missing, Failed } state = State::Ok;
  json::value value;  // Ok: the converted value
  std::string error;  // Failed: without the action prefix
  std::optional<Note> note;
};

Converted ok(json::value v) { return {Converted::State::Ok, std::move(v), {}, std::nullopt}; }

Converted failed(const ParamSpec& p, std::string_view what, const json::value& written) {
  Converted c;
  c.state = Converted::State::Failed;
  c.error = quoted(p.name) + " must be " + std::string(what) + " (got " + shown(written) + ")";
  return c;
}

bool is_missing(const ParamSpec& p, const json::value& v) {
  if (v.is_string()) return ascii::trim(v.get_string()).empty();
  return v.is_null() && p.type != ParamType::Json;
}

std::string enum_choices(const ParamSpec& p) {
  std::vector<std::string_view> seen;
  std::string out;
  for (const EnumValue& e : p.enum_values) {
    bool dup = false;
    for (std::string_view s : seen) dup = dup || s == e.canonical;
    if (dup) continue;
    seen.push_back(e.canonical);
    if (!out.empty()) out += ", ";
    out += e.canonical;
  }
  return out;
}

Converted convert_scalar(const ActionSpec& action, const ParamSpec& p, ParamType type, const json::value& v);

Converted convert_array(const ActionSpec& action, const ParamSpec& p, const json::value& written) {
  json::array items;
  if (written.is_array()) {
    items = written.get_array();
  } else if (written.is_string()) {
    // An attribute may carry the array as JSON text: items='["a", "b"]'.
    std::string_view s = ascii::trim(written.get_string());
    std::error_code ec;
    json::value parsed = s.empty() || s.front() != '[' ? json::value() : json::parse(s, ec);
    if (ec || !parsed.is_array()) return failed(p, "a JSON array", written);
    items = std::move(parsed.get_array());
  } else {
    return failed(p, "a JSON array", written);
  }
  if (p.element != ParamType::Json && p.element != ParamType::Array) {
    for (json::value& item : items) {
      Converted c = convert_scalar(action, p, p.element, item);
      if (c.state != Converted::State::Ok || c.note) {
        return failed(p, "an array of " + std::string(to_string(p.element)) + "s", written);
      }
      item = std::move(c.value);
    }
  }
  if (p.non_empty && items.empty()) {
    Converted c;
    c.state = Converted::State::Failed;
    c.error = quoted(p.name) + " must be a non-empty array";
    return c;
  }
  return ok(json::value(std::move(items)));
}

Converted convert_scalar(const ActionSpec& action, const ParamSpec& p, ParamType type, const json::value& v) {
  switch (type) {
    case ParamType::String: {
      if (auto s = to_text(v)) return ok(json::value(*s));
      return failed(p, "a string", v);
    }
    case ParamType::Integer: {
      if (auto i = to_integer(v)) return ok(std::move(*i));
      return failed(p, "an integer", v);
    }
    case ParamType::Number: {
      if (v.is_number()) return ok(v);
      if (v.is_string()) {
        if (auto n = parse_number(ascii::trim(v.get_string()))) return ok(std::move(*n));
      }
      return failed(p, "a number", v);
    }
    case ParamType::Boolean: {
      if (v.is_bool()) return ok(v);
      if (v.is_string()) {
        if (auto b = parse_boolean(ascii::trim(v.get_string()))) return ok(json::value(*b));
      }
      if (v.is_number()) {
        auto i = to_integer(v);
        if (i && i->is_int64() && (i->get_int64() == 0 || i->get_int64() == 1)) {
          return ok(json::value(i->get_int64() == 1));
        }
      }
      return failed(p, "a boolean", v);
    }
    case ParamType::Enum: {
      auto text = to_text(v);
      if (!text) return failed(p, "one of " + enum_choices(p), v);
      std::string key = ascii::to_lower(ascii::trim(*text));
      for (const EnumValue& e : p.enum_values) {
        if (e.written == key) return ok(json::value(e.canonical));
      }
      if (p.enum_fallback.empty()) return failed(p, "one of " + enum_choices(p), v);
      Converted c = ok(json::value(p.enum_fallback));
      c.note =
          Note{std::string(note::kUnknownEnumPrefix) + p.name,
               action.name + ": unknown " + p.name + " " + shown(v) + "; using " + quoted(p.enum_fallback)};
      return c;
    }
    case ParamType::Duration: {
      if (v.is_string()) {
        std::string_view s = ascii::trim(v.get_string());
        if (is_duration(s)) return ok(json::value(s));
      }
      return failed(p, "a duration like 30m, 2h or 1.5d", v);
    }
    case ParamType::Datetime: {
      if (v.is_string()) {
        std::string_view s = ascii::trim(v.get_string());
        if (is_datetime(s)) return ok(json::value(s));
      }
      return failed(p, "a date and time like 2025-06-01 18:00", v);
    }
    case ParamType::Array:
      return convert_array(action, p, v);
    case ParamType::Json:
      return ok(v);
  }
  return failed(p, "a value", v);
}

Converted convert(const ActionSpec& action, const ParamSpec& p, const json::value& written) {
  if (is_missing(p, written)) return {Converted::State::Missing, {}, {}, std::nullopt};
  return convert_scalar(action, p, p.type, written);
}

// ------------------------------------------------------------------------------------------ collection

// What was written for one parameter; a later key for the same parameter replaces it (9.2).
struct Entry {
  const ParamSpec* param = nullptr;
  json::value written;
};

class Collector {
 public:
  explicit Collector(const ActionSpec& action) : action_(action) {}

  void add(std::string_view key, json::value value) {
    const ParamSpec* p = find_param(action_, key);
    if (p == nullptr) {
      notes_.push_back(
          {std::string(note::kUnknownKey), action_.name + ": unknown parameter " + quoted(key) + " ignored"});
      return;
    }
    put(p, std::move(value), key);
  }

  void put(const ParamSpec* p, json::value value, std::string_view key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->param != p) continue;
      std::string as = ascii::iequals(key, p->name) ? std::string() : " (last as " + quoted(key) + ")";
      notes_.push_back({std::string(note::kDuplicateKey), action_.name + ": " + quoted(p->name) +
                                                              " given more than once" + as +
                                                              "; the last value is used"});
      entries_.erase(it);
      break;
    }
    entries_.push_back({p, std::move(value)});
  }

  void add_attributes(std::span<const Attribute> attributes) {
    for (const Attribute& a : attributes) {
      const ParamSpec* p = find_param(action_, a.key);
      if (!a.has_value && p != nullptr && p->type == ParamType::Boolean) {
        add(a.key, json::value(true));
      } else {
        add(a.key, json::value(a.value));
      }
    }
  }

  std::vector<Entry>& entries() { return entries_; }
  std::vector<Note>& notes() { return notes_; }

 private:
  const ActionSpec& action_;
  std::vector<Entry> entries_;
  std::vector<Note> notes_;
};

std::string join(const std::vector<std::string>& names, std::string_view last_sep) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last_sep : std::string_view(", ");
    out += quoted(names[i]);
  }
  return out;
}

std::string usage_hint(const ActionSpec& action, const Spelling& spelling, const std::string& missing) {
  if (spelling.dialect == Dialect::Bracket) {
    std::string hint = " (write [" + spelling.name;
    for (const std::string& name : positional_params(action, spelling)) hint += ":" + name;
    return hint + "])";
  }
  if (spelling.dialect != Dialect::Tag) return {};
  if (missing == action.body_param && spelling.body != parse::BodyKind::None) {
    return " (write <" + spelling.name + ">" + missing + "</" + spelling.name + ">)";
  }
  if (spelling.body == parse::BodyKind::Json) {
    return " (write <" + spelling.name + ">{\"" + missing + "\": …}</" + spelling.name + ">)";
  }
  return " (write <" + spelling.name + " " + missing + "=\"…\"/>)";
}

// Converts the collected entries, applies presets, required-ness and rules, and builds `args` (9.3, 9.4).
Validated finish(const ActionSpec& action, const Spelling& spelling, Collector& collected) {
  Validated out;
  out.notes = std::move(collected.notes());
  std::vector<std::string> errors;

  std::vector<Converted> converted;
  converted.reserve(collected.entries().size());
  for (const Entry& e : collected.entries()) {
    converted.push_back(convert(action, *e.param, e.written));
    Converted& c = converted.back();
    if (c.state == Converted::State::Failed) errors.push_back(c.error);
    if (c.note) out.notes.push_back(std::move(*c.note));
  }

  auto state_of = [&](std::string_view name) -> const Converted* {
    for (std::size_t i = 0; i < collected.entries().size(); ++i) {
      if (ascii::iequals(collected.entries()[i].param->name, name)) return &converted[i];
    }
    return nullptr;
  };
  auto preset_of = [&](std::string_view name) -> const PresetParam* {
    for (const PresetParam& p : spelling.presets) {
      if (ascii::iequals(p.name, name)) return &p;
    }
    return nullptr;
  };
  auto given = [&](std::string_view name) {
    const Converted* c = state_of(name);
    return (c != nullptr && c->state != Converted::State::Missing) || preset_of(name) != nullptr;
  };

  for (const PresetParam& preset : spelling.presets) {
    if (!preset.fixed) continue;
    const Converted* c = state_of(preset.name);
    if (c == nullptr || c->state != Converted::State::Ok) continue;
    auto want = to_text(preset.value);
    auto got = to_text(c->value);
    bool same =
        want && got ? ascii::iequals(ascii::trim(*want), ascii::trim(*got)) : c->value == preset.value;
    if (!same) {
      errors.push_back(quoted(preset.name) + " must be " + shown(preset.value) + " in <" + spelling.name +
                       "> (got " + shown(c->value) + ")");
    }
  }

  std::vector<std::string> missing;
  for (const ParamSpec& p : action.params) {
    if (!p.required || preset_of(p.name) != nullptr) continue;
    const Converted* c = state_of(p.name);
    if (c == nullptr) {
      missing.push_back(p.name);
    } else if (c->state == Converted::State::Missing) {
      errors.push_back("required parameter " + quoted(p.name) + " is empty");
    }
  }
  if (missing.size() == 1) {
    errors.push_back("missing required parameter " + quoted(missing[0]) +
                     usage_hint(action, spelling, missing[0]));
  } else if (!missing.empty()) {
    errors.push_back("missing required parameters " + join(missing, " and "));
  }

  for (const ParamRule& rule : action.rules) {
    std::size_t count = 0;
    for (const std::string& name : rule.params) count += given(name) ? 1 : 0;
    if (rule.kind == ParamRule::Kind::ExactlyOne && count != 1) {
      errors.push_back("give exactly one of " + join(rule.params, " or "));
    } else if (rule.kind == ParamRule::Kind::AllOrNone && count != 0 && count != rule.params.size()) {
      errors.push_back(rule.params.size() == 2 ? "give both " + join(rule.params, " and ") + ", or neither"
                                               : "give all of " + join(rule.params, ", ") + ", or none");
    }
  }

  out.valid = errors.empty();
  for (std::size_t i = 0; i < collected.entries().size(); ++i) {
    Entry& e = collected.entries()[i];
    Converted& c = converted[i];
    if (c.state == Converted::State::Ok) {
      out.args[e.param->name] = std::move(c.value);
    } else if (!out.valid) {
      out.args[e.param->name] = std::move(e.written);
    }
  }
  if (!out.valid) {
    out.error = action.name + ": ";
    for (std::size_t i = 0; i < errors.size(); ++i) {
      if (i > 0) out.error += "; ";
      out.error += errors[i];
    }
  }
  return out;
}

Validated invalid(const ActionSpec& action, std::string message, std::vector<Note> notes = {}) {
  Validated out;
  out.valid = false;
  out.error = action.name + ": " + message;
  out.notes = std::move(notes);
  return out;
}

const ParamSpec* array_param(const ActionSpec& action) {
  for (const ParamSpec& p : action.params) {
    if (p.type == ParamType::Array) return &p;
  }
  return nullptr;
}

std::string tag_shape(const Spelling& spelling) { return "<" + spelling.name + ">"; }

}  // namespace

// ------------------------------------------------------------------------------------------ public

bool is_duration(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && ascii::is_digit(s[i])) ++i;
  if (i == 0) return false;
  if (i < s.size() && s[i] == '.') {
    std::size_t start = ++i;
    while (i < s.size() && ascii::is_digit(s[i])) ++i;
    if (i == start) return false;
  }
  return i + 1 == s.size() && (s[i] == 'm' || s[i] == 'h' || s[i] == 'd');
}

bool is_datetime(std::string_view s) {
  // YYYY-MM-DD
  if (!digits(s, 0, 4) || s.size() < 16 || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' ||
      !digits(s, 8, 2)) {
    return false;
  }
  if (s[10] != ' ' && s[10] != 'T') return false;
  if (!digits(s, 11, 2) || s[13] != ':' || !digits(s, 14, 2)) return false;
  int month = field(s, 5, 2), day = field(s, 8, 2), hour = field(s, 11, 2), minute = field(s, 14, 2);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return false;
  std::size_t i = 16;
  if (i < s.size() && s[i] == ':') {
    if (!digits(s, i + 1, 2) || field(s, i + 1, 2) > 60) return false;
    i += 3;
  }
  if (i == s.size()) return true;
  if (s[i] == 'Z') return i + 1 == s.size();
  if (s[i] != '+' && s[i] != '-') return false;
  if (i + 6 != s.size() || !digits(s, i + 1, 2) || s[i + 3] != ':' || !digits(s, i + 4, 2)) return false;
  return field(s, i + 1, 2) <= 23 && field(s, i + 4, 2) <= 59;
}

std::optional<bool> parse_boolean(std::string_view s) {
  for (std::string_view t : {"true", "yes", "on", "1"}) {
    if (ascii::iequals(s, t)) return true;
  }
  for (std::string_view f : {"false", "no", "off", "0"}) {
    if (ascii::iequals(s, f)) return false;
  }
  return std::nullopt;
}

std::vector<std::string> split_bracket_args(std::string_view args, std::size_t n) {
  std::vector<std::string> parts;
  if (n == 0) return parts;
  while (parts.size() + 1 < n) {
    std::size_t colon = args.find(':');
    if (colon == std::string_view::npos) break;
    parts.emplace_back(ascii::trim(args.substr(0, colon)));
    args.remove_prefix(colon + 1);
  }
  parts.emplace_back(ascii::trim(args));
  return parts;
}

parse::Validated validate_tag(const ActionSpec& action, const Spelling& spelling,
                              std::span<const parse::Attribute> attributes, const parse::Body& body) {
  if (spelling.dialect != Dialect::Tag) return invalid(action, "not a tag spelling");
  Collector collected(action);
  collected.add_attributes(attributes);

  const bool json_spelling = spelling.body == parse::BodyKind::Json;
  switch (body.kind) {
    case Body::Kind::Absent:
      break;
    case Body::Kind::Text: {
      // A whitespace-only json body means {} (5.1).
      if (json_spelling && ascii::trim(body.text).empty()) break;
      if (action.body_param.empty()) {
        if (json_spelling) {
          return invalid(action,
                         "the body of " + tag_shape(spelling) + " must be a JSON object {…}, not text",
                         std::move(collected.notes()));
        }
        break;  // a body the spelling does not read (a `none` tag's close tag) carries nothing
      }
      collected.put(find_param(action, action.body_param), json::value(body.text), action.body_param);
      break;
    }
    case Body::Kind::Json: {
      if (body.json.is_object()) {
        for (const auto& kv : body.json.get_object()) collected.add(kv.key(), kv.value());
      } else if (const ParamSpec* p = array_param(action); p != nullptr && body.json.is_array()) {
        collected.put(p, body.json, p->name);
      } else {
        return invalid(action, "the body of " + tag_shape(spelling) + " must be a JSON object {…}",
                       std::move(collected.notes()));
      }
      break;
    }
    case Body::Kind::JsonError:
      return invalid(action, "the JSON body of " + tag_shape(spelling) + " does not parse: " + body.error,
                     std::move(collected.notes()));
  }
  return finish(action, spelling, collected);
}

parse::Validated validate_bracket(const ActionSpec& action, const Spelling& spelling, std::string_view args,
                                  bool has_args) {
  if (spelling.dialect != Dialect::Bracket) return invalid(action, "not a bracket spelling");
  Collector collected(action);
  std::vector<std::string> names = positional_params(action, spelling);
  if (has_args) {
    if (names.empty()) {
      if (!ascii::trim(args).empty()) {
        collected.notes().push_back({std::string(note::kUnknownKey),
                                     action.name + ": [" + spelling.name + "] takes no arguments; ignored"});
      }
    } else {
      std::vector<std::string> parts = split_bracket_args(args, names.size());
      for (std::size_t i = 0; i < parts.size(); ++i) {
        collected.put(find_param(action, names[i]), json::value(parts[i]), names[i]);
      }
    }
  }
  return finish(action, spelling, collected);
}

parse::Validated validate_mcp(std::string_view server, std::string_view tool,
                              std::span<const parse::Attribute> attributes, const parse::Body& body) {
  Validated out;
  out.args["server"] = server;
  out.args["tool"] = tool;
  json::object arguments;
  const std::string shape = "<mcp_" + std::string(server) + "_" + std::string(tool) + ">";
  const std::string prefix = "mcp: ";

  auto put = [&](std::string_view key, json::value value) {
    if (arguments.contains(key)) {
      out.notes.push_back(
          {std::string(note::kDuplicateKey),
           prefix + quoted(key) + " given more than once in " + shape + "; the last value is used"});
    }
    arguments[key] = std::move(value);
  };
  for (const Attribute& a : attributes) put(a.key, json::value(a.value));

  std::string error;
  switch (body.kind) {
    case Body::Kind::Absent:
      break;
    case Body::Kind::Text:
      if (!ascii::trim(body.text).empty())
        error = "the body of " + shape + " must be a JSON object {…} of the tool's arguments, not text";
      break;
    case Body::Kind::Json:
      if (!body.json.is_object()) {
        error = "the body of " + shape + " must be a JSON object {…} of the tool's arguments";
      } else {
        for (const auto& kv : body.json.get_object()) put(kv.key(), kv.value());
      }
      break;
    case Body::Kind::JsonError:
      error = "the JSON body of " + shape + " does not parse: " + body.error;
      break;
  }
  if (error.empty() && tool.empty()) error = "no tool name in " + shape;
  out.valid = error.empty();
  if (out.valid) {
    out.args["arguments"] = std::move(arguments);
  } else {
    out.args["arguments"] = json::object();
    out.error = prefix + error;
  }
  return out;
}

}  // namespace sigil::catalog
