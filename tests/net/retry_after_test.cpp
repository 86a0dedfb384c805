#include "sigil/net/retry_after.h"

#include <gtest/gtest.h>

namespace sigil::net {
namespace {

using namespace std::chrono;

// 1994-11-06 08:49:37 UTC, the RFC's own example.
const system_clock::time_point kExample =
    sys_days(year(1994) / November / 6) + hours(8) + minutes(49) + seconds(37);

TEST(RetryAfter, DelaySeconds) {
  EXPECT_EQ(parse_retry_after("0", kExample), seconds(0));
  EXPECT_EQ(parse_retry_after("120", kExample), seconds(120));
  EXPECT_EQ(parse_retry_after(" 7 ", kExample), seconds(7));
}

TEST(RetryAfter, HttpDateInAllThreeForms) {
  const auto now = kExample - seconds(90);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), seconds(90));
  // RFC 850 years are two digits; they are read as 20yy.
  const auto in_2094 = sys_days(year(2094) / November / 6) + hours(8) + minutes(49) + seconds(37);
  EXPECT_EQ(parse_retry_after("Saturday, 06-Nov-94 08:49:37 GMT", in_2094 - seconds(5)), seconds(5));
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", now), seconds(90));
  EXPECT_EQ(parse_retry_after("Sun Nov 16 08:49:37 1994", now), seconds(90) + days(10));
}

TEST(RetryAfter, DateInThePastIsZeroAndFractionsRoundUp) {
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kExample + hours(1)), seconds(0));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kExample - milliseconds(1500)), seconds(2));
}

TEST(RetryAfter, GarbageIsNotAWait) {
  for (std::string_view bad : {"", "  ", "-1", "1.5", "10s", "soon", "Sun, 06 Nov 1994 08:49:37 UTC",
                               "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
                               "Sun, 6 Nov 1994 08:49:37 GMT", "99999999999999999999"}) {
    EXPECT_EQ(parse_retry_after(bad, kExample), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace sigil::net
