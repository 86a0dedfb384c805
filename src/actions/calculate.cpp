#include "sigil/actions/calculate.h"

#include <muParser.h>

#include <algorithm>
#include <boost/json/object.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

// Thrown by the division operator; muparser lets it through Eval() untouched.
struct DivisionByZero {};

double add(double a, double b) { return a + b; }
double subtract(double a, double b) { return a - b; }
double multiply(double a, double b) { return a * b; }
double divide(double a, double b) {
  if (b == 0) throw DivisionByZero{};
  return a / b;
}
double power(double a, double b) { return std::pow(a, b); }

// The expression as shown in messages: one line, at most ~80 bytes, never cut inside a UTF-8 sequence.
std::string quoted(std::string_view expression) {
  constexpr std::size_t kShown = 80;
  std::string shown;
  const std::size_t cut = text::safe_cut(expression, kShown);
  for (char c : expression.substr(0, cut)) shown += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (cut < expression.size()) shown += "…";
  return "\"" + shown + "\"";
}

// The expression rewritten into what muparser reads, and for each of its bytes the 1-based character of
// the original it came from (muparser's error positions are into the rewritten string).
struct Rewritten {
  std::string expr;
  std::vector<std::size_t> origin;
  std::size_t chars = 0;  // characters in the original
};

struct Refusal {
  std::string what;           // "unexpected \"%\""
  std::size_t character = 0;  // 1-based; 0: no position
  std::string hint;           // after the expression, "; " separated; may be empty
};

std::string refusal_message(const Refusal& r, std::string_view expression) {
  std::string m = "calculate: " + r.what;
  if (r.character > 0) m += " at character " + std::to_string(r.character);
  m += " in " + quoted(expression);
  if (!r.hint.empty()) m += "; " + r.hint;
  return m;
}

using text::ascii::is_digit;
using text::ascii::is_space;
bool is_name_start(char c) { return text::ascii::is_alpha(c) || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

std::string printable(std::string_view unit) {
  if (unit.size() == 1 && (static_cast<unsigned char>(unit[0]) < 0x20 || unit[0] == 0x7f)) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(unit[0])));
    return buf;
  }
  if (!text::is_valid_utf8(unit)) return "an invalid UTF-8 byte";
  return "\"" + std::string(unit) + "\"";
}

// Spellings a model writes instead of muparser's, and the characters refused outright.
Result<Rewritten> rewrite(std::string_view in) {
  Rewritten out;
  auto emit = [&](std::string_view s) {
    out.expr += s;
    out.origin.insert(out.origin.end(), s.size(), out.chars);
  };
  auto refuse = [&](std::string what, std::string hint = {}) {
    return make_error(ErrorCode::invalid_argument,
                      refusal_message({std::move(what), out.chars, std::move(hint)}, in));
  };
  for (std::size_t i = 0; i < in.size();) {
    const std::size_t len = std::max<std::size_t>(1, text::unit_length(in, i));
    const std::string_view unit = in.substr(i, len);
    ++out.chars;
    const char c = unit[0];
    if (unit == "×" || unit == "·") {
      emit("*");
    } else if (unit == "÷") {
      emit("/");
    } else if (unit == "−") {
      emit("-");
    } else if (unit == "π") {
      emit("_pi");
    } else if (c == '*' && i + 1 < in.size() && in[i + 1] == '*') {
      emit("^");
      ++i;  // the second '*' is consumed here but still counts as a character for positions
      ++out.chars;
    } else if (len == 1 && (is_space(c) || is_name_char(c) || c == '.' || c == '+' || c == '-' || c == '*' ||
                            c == '/' || c == '^' || c == '(' || c == ')' || c == ',')) {
      emit(unit);
    } else if (c == '%') {
      return refuse("unexpected \"%\"", "write a percentage as /100 (15% of 80: 15/100*80)");
    } else if (c == '=') {
      return refuse("unexpected \"=\"", "write only the expression: no variables, equations or comparisons");
    } else {
      return refuse("unexpected character " + printable(unit),
                    "only numbers, + - * / ^, parentheses and functions");
    }
    i += len;
  }
  return out;
}

// Counts tokens and nesting, and refuses what muparser would misread, before muparser sees the string.
std::optional<Refusal> prescan(const Rewritten& r, const CalculateConfig& config) {
  const std::string& s = r.expr;
  std::size_t tokens = 0;
  std::vector<bool> call_parens;  // per open '(': whether a function name came right before it
  bool after_name = false;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (++tokens > config.max_tokens)
      return Refusal{"the expression has more than " + std::to_string(config.max_tokens) + " tokens", 0,
                     "split it into smaller calculations"};
    const std::size_t at = r.origin[i];
    if (is_digit(c) || c == '.') {
      while (i < s.size() && (is_digit(s[i]) || s[i] == '.')) ++i;
      // An exponent: 1e3, 2.5E-4 (muparser reads it as part of the number).
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < s.size() && is_digit(s[j])) {
          i = j;
          while (i < s.size() && is_digit(s[i])) ++i;
        }
      }
      after_name = false;
      continue;
    }
    if (is_name_start(c)) {
      const std::size_t start = i;
      while (i < s.size() && is_name_char(s[i])) ++i;
      if (std::string_view(s).substr(start, i - start) == "log")
        return Refusal{"\"log\" is ambiguous", at, "write ln(x) for the natural logarithm or log10(x)"};
      after_name = true;
      continue;
    }
    if (c == '(') {
      call_parens.push_back(after_name);
      if (call_parens.size() > config.max_depth)
        return Refusal{"parentheses nested deeper than " + std::to_string(config.max_depth), at, ""};
    } else if (c == ')') {
      if (!call_parens.empty()) call_parens.pop_back();  // an unmatched ')' is muparser's to report
    } else if (c == ',') {
      if (call_parens.empty() || !call_parens.back())
        return Refusal{
            "unexpected \",\"", at,
            "write numbers without thousands separators; \",\" only separates a function's arguments"};
    }
    after_name = false;
    ++i;
  }
  if (tokens == 0) return Refusal{"the expression is empty", 0, ""};
  return std::nullopt;
}

// muparser's message without its own position (which counts bytes of the rewritten string), first letter
// lower case to follow "calculate: ".
std::string muparser_what(const mu::Parser::exception_type& e) {
  std::string m = e.GetMsg();
  for (const char* tail : {" at expression position", " at position", " (position:"}) {
    const auto p = m.rfind(tail);
    if (p != std::string::npos) {
      m.erase(p);
      break;
    }
  }
  while (!m.empty() && (m.back() == '.' || m.back() == ' ')) m.pop_back();
  if (m.size() > 6 && m.compare(m.size() - 6, 6, " found") == 0) m.erase(m.size() - 6);
  if (!m.empty()) m[0] = text::ascii::lower(m[0]);
  return m.empty() ? "syntax error" : m;
}

}  // namespace

std::string format_number(double value) {
  if (value == 0 || !std::isfinite(value)) return value == 0 ? "0" : (std::isnan(value) ? "nan" : "inf");
  constexpr double kExactInts = 9007199254740992.0;  // 2^53: every integer below is exact
  if (std::fabs(value) < kExactInts && value == std::trunc(value)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  // 12 significant digits, rounded once; then placed by hand so that no exponent shows for everyday sizes.
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.11e", value);  // [-]d.ddddddddddde±XX
  std::string_view s(buf);
  const bool negative = s[0] == '-';
  if (negative) s.remove_prefix(1);
  const auto e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e))
    if (c != '.') digits += c;
  const int exponent = std::atoi(std::string(s.substr(e + 1)).c_str());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits == "0") return "0";

  std::string out = negative ? "-" : "";
  if (exponent >= 21 || exponent < -7) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[8];
    std::snprintf(ebuf, sizeof ebuf, "e%+03d", exponent);
    return out + ebuf;
  }
  if (exponent < 0) return out + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  const auto int_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= int_digits) return out + digits + std::string(int_digits - digits.size(), '0');
  return out + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

Result<Calculation> calculate(std::string_view expression, const CalculateConfig& config) {
  if (expression.size() > config.max_bytes)
    return make_error(ErrorCode::too_large, "calculate: the expression is " +
                                                std::to_string(expression.size()) + " bytes; at most " +
                                                std::to_string(config.max_bytes) + " are allowed");
  auto rewritten = rewrite(expression);
  if (!rewritten) return std::move(rewritten).error();
  if (auto refusal = prescan(*rewritten, config))
    return make_error(ErrorCode::invalid_argument, refusal_message(*refusal, expression));

  double value = 0;
  try {
    mu::Parser parser;
    // Our own binary operators: the built-in ones include `=`, comparisons, logic and a division that
    // silently gives inf. Precedences and associativity are muparser's own.
    parser.EnableBuiltInOprt(false);
    parser.DefineOprt("+", add, mu::prADD_SUB);
    parser.DefineOprt("-", subtract, mu::prADD_SUB);
    parser.DefineOprt("*", multiply, mu::prMUL_DIV);
    parser.DefineOprt("/", divide, mu::prMUL_DIV);
    parser.DefineOprt("^", power, mu::prPOW, mu::oaRIGHT);
    parser.DefineConst("pi", std::numbers::pi);
    parser.SetExpr(rewritten->expr);
    int results = 0;
    const double* values = parser.Eval(results);
    // prescan() allows commas only inside a function's parentheses, so there is exactly one result.
    if (results != 1)
      return make_error(ErrorCode::invalid_argument,
                        refusal_message({"expected one value", 0, ""}, expression));
    value = values[0];
  } catch (const DivisionByZero&) {
    return make_error(ErrorCode::invalid_argument, refusal_message({"division by zero", 0, ""}, expression));
  } catch (const mu::Parser::exception_type& e) {
    std::size_t at = 0;
    const int pos = e.GetPos();
    const std::string msg = e.GetMsg();
    if (pos >= 0 && static_cast<std::size_t>(pos) < rewritten->origin.size() &&
        msg.find("position") != std::string::npos)
      at = rewritten->origin[static_cast<std::size_t>(pos)];
    return make_error(ErrorCode::invalid_argument, refusal_message({muparser_what(e), at, ""}, expression));
  } catch (const std::exception& e) {
    return make_error(ErrorCode::io, "calculate: internal error: " + std::string(e.what()));
  }
  if (!std::isfinite(value))
    return make_error(ErrorCode::invalid_argument,
                      refusal_message({"result is not a finite number", 0, ""}, expression));

  Calculation out;
  out.text = format_number(value);
  // The value as shown, so that the result and the message never disagree.
  out.value = std::strtod(out.text.c_str(), nullptr);
  return out;
}

void add_calculate_handlers(exec::HandlerTable& table, CalculateConfig config) {
  table.add("calculate", [config](const exec::Directive& d, exec::ActionContext& ctx) {
    if (ctx.stop_requested()) return exec::HandlerResult::error("calculate: stopped before it ran");
    const auto* arg = d.args.if_contains("expression");
    const std::string_view expression =
        arg != nullptr && arg->is_string() ? std::string_view(arg->get_string()) : std::string_view();
    auto calc = calculate(expression, config);
    if (!calc) return exec::HandlerResult::error(calc.error().message);
    boost::json::object result;
    result["expression"] = expression;
    constexpr double kExactInts = 9007199254740992.0;
    if (std::fabs(calc->value) < kExactInts && calc->value == std::trunc(calc->value))
      result["value"] = static_cast<std::int64_t>(calc->value);  // 14, not 1.4E1
    else
      result["value"] = calc->value;
    return exec::HandlerResult::ok(calc->text, std::move(result));
  });
  table.set_quick("calculate");  // pure computation: no wait, so no thread hand-off
}

}  // namespace sigil::actions
