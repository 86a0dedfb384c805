// calculate (spec 13, 10.2, 15): muparser behind a pre-scan, refusals, number formatting, and one reply
// through the real parser and executor.
#include "sigil/actions/calculate.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/parse/parser.h"
#include "support/expect_each.h"
#include "support/handler_context.h"
#include "support/run_turn.h"

namespace sigil::actions {
namespace {

std::string calc(std::string_view expression) {
  auto r = calculate(expression);
  return r ? r->text : "ERROR " + r.error().message;
}

std::string error_of(std::string_view expression) {
  auto r = calculate(expression);
  return r ? "OK " + r->text : r.error().message;
}

// For each case, the error of `in` holds `want` (the rest of the message is checked elsewhere).
void expect_errors_hold(std::initializer_list<test::TextCase> cases) {
  for (const test::TextCase& c : cases) {
    const std::string e = error_of(c.in);
    EXPECT_NE(e.find(c.want), std::string::npos)
        << "for the input " << ::testing::PrintToString(c.in) << ": " << e;
  }
}

TEST(Calculate, Arithmetic) {
  test::expect_each(
      calc, {
                {"2*(3+4)", "14"},         {"342*15", "5130"}, {"1+2*3", "7"},   {"(1+2)*3", "9"},
                {"2-3-4", "-5"},           {"8/4/2", "1"},     {"7/2", "3.5"},   {"1/3", "0.333333333333"},
                {"2/3", "0.666666666667"}, {"-3*-2", "6"},     {"2*-3", "-6"},   {"+3", "3"},
                {"  12 +  30 ", "42"},     {"0.1+0.2", "0.3"}, {".5+5.", "5.5"}, {"1e3+1", "1001"},
                {"2.5E-3*4", "0.01"},      {"1-1", "0"},       {"-0*1", "0"},  // never "-0"
            });
}

TEST(Calculate, PowersAndPrecedence) {
  test::expect_each(calc, {
                              {"2^10", "1024"},
                              {"2^3^2", "512"},  // right-associative
                              {"-2^2", "-4"},    // the sign applies after the power
                              {"2^-1", "0.5"},
                              {"2**3", "8"},
                              {"2 ** 3 ** 2", "512"},
                              {"3+4*2/(1-5)^2", "3.5"},
                          });
}

TEST(Calculate, UnicodeOperatorSpellings) {
  test::expect_each(calc, {
                              {"6×7", "42"},
                              {"6·7", "42"},
                              {"84÷2", "42"},
                              {"50−8", "42"},
                          });
  EXPECT_EQ(calc("2*π"), calc("2*_pi"));
}

TEST(Calculate, FunctionsAndConstants) {
  test::expect_each(calc, {
                              {"sqrt(16)", "4"},
                              {"sqrt(2)", "1.41421356237"},
                              {"abs(-3.5)", "3.5"},
                              {"sin(0)", "0"},
                              {"sin(_pi/2)", "1"},
                              {"cos(_pi)", "-1"},
                              {"min(3,1,2)", "1"},
                              {"max(3, 1+9, 2)", "10"},
                              {"avg(1,2)", "1.5"},
                              {"sum(1,2,3,4)", "10"},
                              {"max(min(1,2),avg(4,6))", "5"},
                              {"ln(_e)", "1"},
                              {"log10(1000)", "3"},
                              {"log2(8)", "3"},
                              {"exp(0)", "1"},
                              {"rint(2.6)", "3"},
                              {"_pi", "3.14159265359"},
                              {"pi", "3.14159265359"},
                              {"_e", "2.71828182846"},
                          });
}

TEST(Calculate, Formatting) {
  EXPECT_EQ(format_number(42), "42");
  EXPECT_EQ(format_number(-42), "-42");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(0.1 + 0.2), "0.3");
  EXPECT_EQ(format_number(2.9999999999999996), "3");
  EXPECT_EQ(format_number(1234567.891), "1234567.891");
  EXPECT_EQ(format_number(9007199254740991.0), "9007199254740991");  // exact integers stay exact
  EXPECT_EQ(format_number(1e20), "100000000000000000000");
  EXPECT_EQ(format_number(1e21), "1e+21");
  EXPECT_EQ(format_number(1.5e25), "1.5e+25");
  EXPECT_EQ(format_number(123456789012345.6), "123456789012000");
  EXPECT_EQ(format_number(0.000001), "0.000001");
  EXPECT_EQ(format_number(1.25e-7), "0.000000125");
  EXPECT_EQ(format_number(1e-8), "1e-08");
  EXPECT_EQ(format_number(-0.5), "-0.5");
}

TEST(Calculate, ValueMatchesTheText) {
  auto r = calculate("1/3");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value, 0.333333333333);
}

TEST(Calculate, DivisionByZero) {
  test::expect_each(
      error_of,
      {
          {"1/0", "calculate: division by zero in \"1/0\""},
          {"0/0", "calculate: division by zero in \"0/0\""},
          {"5/(2-2)", "calculate: division by zero in \"5/(2-2)\""},
          {"1/(1/0)", "calculate: division by zero in \"1/(1/0)\""},  // never hidden by a later step
      });
}

TEST(Calculate, NonFiniteResults) {
  test::expect_each(error_of, {
                                  {"sqrt(-1)", "calculate: result is not a finite number in \"sqrt(-1)\""},
                                  {"10^400", "calculate: result is not a finite number in \"10^400\""},
                                  {"ln(0)", "calculate: result is not a finite number in \"ln(0)\""},
                              });
}

TEST(Calculate, RefusesAssignmentAndVariables) {
  test::expect_each(
      error_of,
      {
          {"x=3",
           "calculate: unexpected \"=\" at character 2 in \"x=3\"; write only the expression: no variables, "
           "equations or comparisons"},
          {"2+2=",
           "calculate: unexpected \"=\" at character 4 in \"2+2=\"; write only the expression: "
           "no variables, equations or comparisons"},
          {"x+1", "calculate: unexpected token \"x\" at character 1 in \"x+1\""},
          {"2*foo(1)", "calculate: unexpected token \"foo\" at character 3 in \"2*foo(1)\""},
      });
}

TEST(Calculate, RefusesWhatIsNotArithmetic) {
  EXPECT_EQ(error_of("\"a\""),
            "calculate: unexpected character \"\"\" at character 1 in \"\"a\"\"; only numbers, "
            "+ - * / ^, parentheses and functions");
  expect_errors_hold({
      {"1<2", "unexpected character \"<\" at character 2"},
      {"1?2:3", "unexpected character \"?\" at character 2"},
      {"1 && 0", "unexpected character \"&\""},
      {"2€", "unexpected character \"€\" at character 2"},
      {"1\x01", "unexpected character U+0001 at character 2"},
  });
}

TEST(Calculate, RefusesPercentWithAHint) {
  EXPECT_EQ(error_of("15%*80"),
            "calculate: unexpected \"%\" at character 3 in \"15%*80\"; write a percentage as "
            "/100 (15% of 80: 15/100*80)");
  EXPECT_NE(error_of("7 % 3").find("unexpected \"%\""), std::string::npos);
}

TEST(Calculate, RefusesThousandsSeparators) {
  // muparser alone would read "1,000" as two expressions and answer 0.
  EXPECT_EQ(error_of("1,000"),
            "calculate: unexpected \",\" at character 2 in \"1,000\"; write numbers without thousands "
            "separators; \",\" only separates a function's arguments");
  expect_errors_hold({
      {"(1,2)", "unexpected \",\" at character 3"},
      {"max(1,(2,3))", "unexpected \",\" at character 9"},
  });
  EXPECT_EQ(calc("max(1,000)"), "1");  // inside a call it is an argument separator: documented
}

TEST(Calculate, RefusesAmbiguousLog) {
  EXPECT_EQ(error_of("log(100)"),
            "calculate: \"log\" is ambiguous at character 1 in \"log(100)\"; write ln(x) for "
            "the natural logarithm or log10(x)");
}

TEST(Calculate, SyntaxErrorsCarryTheOriginalPosition) {
  test::expect_each(
      error_of, {
                    {"2+", "calculate: unexpected end of expression in \"2+\""},
                    {"2*(3+4", "calculate: missing parenthesis in \"2*(3+4\""},
                    {"3 4", "calculate: unexpected value \"4\" at character 3 in \"3 4\""},
                    // Positions count characters of what the model wrote, not bytes of the rewritten string.
                    {"6×7 8", "calculate: unexpected value \"8\" at character 5 in \"6×7 8\""},
                    {"2**3 4", "calculate: unexpected value \"4\" at character 6 in \"2**3 4\""},
                });
  expect_errors_hold({
      {"min()", "too few parameters for function \"min\""},
      {"1.5.2", "at character 4"},
  });
  EXPECT_EQ(error_of(""), "calculate: the expression is empty in \"\"");
  EXPECT_EQ(error_of("   "), "calculate: the expression is empty in \"   \"");
}

TEST(Calculate, Bounds) {
  std::string big(4097, '1');
  EXPECT_EQ(error_of(big), "calculate: the expression is 4097 bytes; at most 4096 are allowed");
  std::string many = "1";
  for (int i = 0; i < 127; ++i) many += "+1";  // 255 tokens
  EXPECT_EQ(calc(many), "128");
  many += "+1";  // 257
  EXPECT_EQ(error_of(many).substr(0, 55), "calculate: the expression has more than 256 tokens in \"");
  std::string deep = std::string(64, '(') + "1" + std::string(64, ')');
  EXPECT_EQ(calc(deep), "1");
  deep = std::string(65, '(') + "1" + std::string(65, ')');
  EXPECT_NE(error_of(deep).find("parentheses nested deeper than 64 at character 65"), std::string::npos);
  CalculateConfig tight;
  tight.max_tokens = 3;
  EXPECT_TRUE(calculate("1+2", tight).ok());
  EXPECT_FALSE(calculate("1+2+3", tight).ok());
}

TEST(Calculate, LongExpressionsAreShortenedInMessages) {
  std::string e = "1/(";
  for (int i = 0; i < 60; ++i) e += "1-";
  e += "1+59)";  // 1 - 1 - ... = 1 - 60 + 59 = 0
  const std::string m = error_of(e);
  EXPECT_EQ(m.rfind("calculate: division by zero in \"1/(1-1-", 0), 0u) << m;
  EXPECT_NE(m.find("…\""), std::string::npos) << m;
  EXPECT_LT(m.size(), 130u);
}

// ---- through the executor

TEST(CalculateEndToEnd, ResultReplacesTheDirective) {
  auto store = test::memory_store();
  exec::HandlerTable handlers;
  add_calculate_handlers(handlers);
  test::TurnRun t = test::run_turn("Total: [CALCULATE:2*(3+4)] apples", handlers, *store);
  EXPECT_EQ(t.text(), "Total: 14 apples");
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, exec::ResultStatus::Ok);
  EXPECT_EQ(boost::json::serialize(t.report.results[0].result), R"j({"expression":"2*(3+4)","value":14})j");
  EXPECT_EQ(t.model_message, "");  // inline: only failures go to the model
}

TEST(CalculateEndToEnd, TagSpellingAndAnErrorForTheModel) {
  auto store = test::memory_store();
  exec::HandlerTable handlers;
  add_calculate_handlers(handlers);
  test::TurnRun t =
      test::run_turn("Half: <calculate>1 ÷ 2</calculate>. Broken: [CALCULATE:1/0] done", handlers, *store);
  EXPECT_EQ(t.text().substr(0, 10), "Half: 0.5.");
  ASSERT_EQ(t.report.results.size(), 2u);
  EXPECT_EQ(t.report.results[1].status, exec::ResultStatus::Error);
  EXPECT_EQ(t.model_message, "[2] calculate: error: division by zero in \"1/0\"\n");
}

}  // namespace
}  // namespace sigil::actions
