// Base64 (text/base64.h): RFC 4648's test vectors both ways, and a strict decoder.
#include "sigil/text/base64.h"

#include <gtest/gtest.h>

namespace sigil::text {
namespace {

TEST(Base64, Rfc4648VectorsBothWays) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(base64_encode(plain), coded);
    EXPECT_EQ(base64_decode(coded), std::optional<std::string>(plain));
  }
  const std::string all = [] {
    std::string s;
    for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
    return s;
  }();
  EXPECT_EQ(base64_decode(base64_encode(all)), all);
}

TEST(Base64, DecodingSkipsLineBreaksAndAcceptsMissingPadding) {
  EXPECT_EQ(base64_decode("Zm9v\r\nYmFy\n"), std::optional<std::string>("foobar"));
  EXPECT_EQ(base64_decode("Zm9vYg"), std::optional<std::string>("foob"));
}

TEST(Base64, DecodingRefusesWhatIsNotBase64) {
  EXPECT_FALSE(base64_decode("Zm9v!"));     // not in the alphabet
  EXPECT_FALSE(base64_decode("Zm9v-_"));    // the URL-safe alphabet is another encoding
  EXPECT_FALSE(base64_decode("Zg==Zg=="));  // a digit after padding
  EXPECT_FALSE(base64_decode("Z"));         // one digit holds no byte
  EXPECT_FALSE(base64_decode("Zm9=="));     // padding where it does not belong
  EXPECT_FALSE(base64_decode("Zh=="));      // non-zero leftover bits: not canonical
}

}  // namespace
}  // namespace sigil::text
