// The `calculate` action (spec 13, 10.2, 15): safe arithmetic whose result replaces the directive in the
// clean text (`Total: [CALCULATE:2*(3+4)] apples` -> `Total: 14 apples`).
//
// What the handler promises:
// - Arithmetic only, through muparser with a fresh mu::Parser per call (it is not thread-safe). Numbers,
//   `+ - * / ^`, parentheses, the functions muparser defines (sqrt, abs, sin, cos, tan, asin, acos, atan,
//   atan2, sinh..atanh, exp, ln, log2, log10, rint, sign, min, max, sum, avg) and the constants `_pi`, `_e`
//   (also `pi`, `π`). No variables, no assignment (`=` is refused), no comparisons, no ternary, no strings:
//   an expression cannot define or run anything.
// - Spellings a model writes are accepted: `×` and `·` for `*`, `÷` for `/`, `−` (U+2212) for `-`, `**` for
//   `^`. `^` is right-associative and binds tighter than a leading minus (`-2^2` is -4).
// - Refused, each with a one-line error saying how to fix it: `%` (ambiguous: percent or remainder), `,`
//   outside a function's arguments (`1,000`: muparser would read two expressions and answer 0), `log`
//   (ambiguous: write ln or log10), any other character.
// - Bounded before muparser sees it: at most `max_bytes` of input, `max_tokens` tokens and `max_depth`
//   nested parentheses; evaluation is then a few hundred operations at most.
// - Division by zero is an error (`calculate: division by zero in "1/0"`), and so is a result that is not
//   a finite number (`sqrt(-1)`, `10^400`).
// - The message is the formatted number (format_number()); the result is {"expression": as written,
//   "value": the same number}.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sigil/actions/result.h"
#include "sigil/exec/handler.h"

namespace sigil::actions {

struct CalculateConfig {
  std::size_t max_bytes = 4096;  // the expression as written
  std::size_t max_tokens = 256;  // numbers, names, operators, parentheses and commas
  std::size_t max_depth = 64;    // nested parentheses
};

struct Calculation {
  double value = 0;  // as shown: rounded to what `text` says
  std::string text;  // format_number(value)
};

// Evaluates one expression. The error's message is the one-line message the model gets, e.g.
// `calculate: division by zero in "1/0"`.
Result<Calculation> calculate(std::string_view expression, const CalculateConfig& config = {});

// Integers that a double holds exactly print without decimals ("42"); other values with up to 12
// significant digits, trailing zeros dropped ("0.333333333333", "3" for 2.9999999999999996), in plain
// notation from 1e-7 up to 1e21 and with an exponent beyond ("1.5e+25"). Never "-0".
std::string format_number(double value);

void add_calculate_handlers(exec::HandlerTable& table, CalculateConfig config = {});

}  // namespace sigil::actions
