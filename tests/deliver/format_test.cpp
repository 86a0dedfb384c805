#include "sigil/deliver/format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sigil::deliver {
namespace {

TEST(DeliverFormat, HumanSize) {
  const std::vector<std::pair<std::uint64_t, std::string>> cases = {
      {0, "0 B"},
      {999, "999 B"},
      {1000, "1.0 KB"},
      {12345, "12.3 KB"},
      {999949, "999.9 KB"},
      {999950, "1.0 MB"},
      {52428800, "52.4 MB"},
      {3'000'000'000, "3.0 GB"},
      {7'500'000'000'000, "7.5 TB"},
      {9'000'000'000'000'000, "9000.0 TB"},
  };
  for (const auto& [bytes, text] : cases) EXPECT_EQ(human_size(bytes), text) << bytes;
}

TEST(DeliverFormat, HumanDuration) {
  const std::vector<std::pair<std::uint64_t, std::string>> cases = {
      {0, "0:00"}, {499, "0:00"}, {500, "0:01"}, {3200, "0:03"}, {59'600, "1:00"}, {3'725'000, "62:05"},
  };
  for (const auto& [ms, text] : cases) EXPECT_EQ(human_duration(ms), text) << ms;
}

}  // namespace
}  // namespace sigil::deliver
