// sigil::Result<T, E>: the one value-or-error vocabulary (include/sigil/base/result.h).
#include "sigil/base/result.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace sigil {
namespace {

Result<int> half(int n) {
  if (n % 2 != 0) return Failure{std::string("odd: ") + std::to_string(n)};
  return n / 2;
}

struct CodedError {
  int code = 0;
  std::string message;
};

Result<std::string, CodedError> coded(bool fail) {
  if (fail) return CodedError{7, "seven"};  // an E converts when it cannot be the value
  return std::string("fine");
}

TEST(ResultTest, HoldsAValueOrAnError) {
  const Result<int> ok = half(4);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, 2);
  EXPECT_EQ(ok.error(), "");  // a success's error is empty, never a throw
  const Result<int> bad = half(3);
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error(), "odd: 3");
  EXPECT_THROW((void)bad.value(), std::bad_variant_access);
}

TEST(ResultTest, FailureTellsTheErrorWhenTheTypesAreTheSame) {
  const Result<std::string, std::string> value = std::string("a value");
  const Result<std::string, std::string> error = Failure{std::string("an error")};
  EXPECT_TRUE(value.ok());
  EXPECT_EQ(*value, "a value");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.error(), "an error");
}

TEST(ResultTest, ErrorsWithACode) {
  const auto bad = coded(true);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 7);
  EXPECT_EQ(bad.error().message, "seven");
  EXPECT_EQ(coded(false).error().code, 0);
  EXPECT_EQ(*coded(false), "fine");
}

TEST(ResultTest, StatusIsSuccessOrAnError) {
  const Status<> fine;
  EXPECT_TRUE(fine.ok());
  const Status<> failed = Failure{std::string("no")};
  EXPECT_FALSE(failed);
  EXPECT_EQ(failed.error(), "no");
  const Status<CodedError> coded_failure = CodedError{3, "three"};
  EXPECT_EQ(coded_failure.error().code, 3);
}

TEST(ResultTest, MovesTheValueAndTheErrorOut) {
  Result<std::string> r = std::string(100, 'x');
  const std::string taken = std::move(r).value();
  EXPECT_EQ(taken.size(), 100u);
  Result<int> e = Failure{std::string(50, 'e')};
  const std::string error = std::move(e).error();
  EXPECT_EQ(error.size(), 50u);
}

}  // namespace
}  // namespace sigil
