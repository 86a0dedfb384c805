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

// The URL-safe alphabet without padding: RFC 7636's PKCE example (appendix B) and the two letters that
// differ.
TEST(Base64, UrlSafeWithoutPadding) {
  const unsigned char verifier_bytes[] = {116, 24,  223, 180, 151, 153, 224, 37,  79,  250, 96,
                                          125, 216, 173, 187, 186, 22,  212, 37,  77,  105, 214,
                                          191, 240, 91,  88,  5,   88,  83,  132, 141, 121};
  EXPECT_EQ(base64url_encode(std::string_view(reinterpret_cast<const char*>(verifier_bytes), 32)),
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");  // base64: "+/8="
  EXPECT_EQ(base64url_encode(""), "");
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
