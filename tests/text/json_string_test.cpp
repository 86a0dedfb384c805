// append_json_string writes what Boost.JSON's serializer writes: exactly-once keys and stored results made
// the direct way must equal those made through a json::value, byte for byte.
#include "sigil/text/json_string.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace sigil::text {
namespace {

std::string boost_text(std::string_view s) { return boost::json::serialize(boost::json::string(s)); }

std::string direct(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonString, EveryByteAsBoostJsonWritesIt) {
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    EXPECT_EQ(direct(one), boost_text(one)) << b;
    const std::string inside = "a" + one + "bc";
    EXPECT_EQ(direct(inside), boost_text(inside)) << b;
  }
}

TEST(JsonString, TextsAsBoostJsonWritesThem) {
  for (std::string_view s :
       {std::string_view(""), std::string_view("plain"), std::string_view("quote \" and \\ back"),
        std::string_view("line\nbreak\r\ttab\b\f"),
        std::string_view("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x91\x8d"),
        std::string_view("\x7f del and \x01\x1f"), std::string_view("\xff\xfe not UTF-8"),
        std::string_view("</script>")})
    EXPECT_EQ(direct(s), boost_text(s)) << s;
}

TEST(JsonString, AppendsToWhatIsThere) {
  std::string out = "x:";
  append_json_string(out, "y");
  EXPECT_EQ(out, "x:\"y\"");
}

}  // namespace
}  // namespace sigil::text
