// The JWT client assertion (actions/jwt_assertion.h): signed with a key made here, verified with its public
// half as an authorization server would (ES256's r||s turned back into DER for OpenSSL).
#include "actions/jwt_assertion.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json.hpp>
#include <string>

#include "sigil/text/base64.h"

namespace sigil::actions {
namespace {

std::string pem_of(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return pem;
}

std::string unbase64url(std::string s) {
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (s.size() % 4 != 0) s += '=';
  return text::base64_decode(s).value_or("");
}

// Whether `jwt` is signed by `key`.
bool verifies(const std::string& jwt, EVP_PKEY* key, bool ec) {
  const auto dot = jwt.rfind('.');
  const std::string input = jwt.substr(0, dot);
  std::string sig = unbase64url(jwt.substr(dot + 1));
  if (ec) {
    if (sig.size() != 64) return false;
    ECDSA_SIG* s = ECDSA_SIG_new();
    ECDSA_SIG_set0(s, BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()), 32, nullptr),
                   BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()) + 32, 32, nullptr));
    unsigned char* der = nullptr;
    const int n = i2d_ECDSA_SIG(s, &der);
    sig.assign(reinterpret_cast<char*>(der), static_cast<std::size_t>(n));
    OPENSSL_free(der);
    ECDSA_SIG_free(s);
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
                  EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                                   reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

TEST(JwtAssertion, Es256IsSignedAsJwsWantsIt) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  ASSERT_NE(key, nullptr);
  const boost::json::object claims{{"iss", "c"}, {"sub", "c"}, {"aud", "https://as"}};
  auto jwt = sign_jwt(claims, pem_of(key), "ES256");
  ASSERT_TRUE(jwt) << jwt.error().message;
  const auto first = jwt->find('.');
  EXPECT_EQ(boost::json::parse(unbase64url(jwt->substr(0, first))),
            boost::json::parse(R"({"alg":"ES256","typ":"JWT"})"));
  EXPECT_EQ(boost::json::parse(unbase64url(jwt->substr(first + 1, jwt->rfind('.') - first - 1))),
            boost::json::value(claims));
  EXPECT_EQ(jwt->find_first_of("+/="), std::string::npos);
  EXPECT_TRUE(verifies(*jwt, key, true));
  // Another key's signature does not verify: the check can fail.
  EVP_PKEY* other = EVP_EC_gen("P-256");
  EXPECT_FALSE(verifies(*jwt, other, true));
  EVP_PKEY_free(other);
  EVP_PKEY_free(key);
}

TEST(JwtAssertion, Rs256AndMistakes) {
  EVP_PKEY* rsa = EVP_RSA_gen(2048);
  ASSERT_NE(rsa, nullptr);
  auto jwt = sign_jwt({{"iss", "c"}}, pem_of(rsa), "RS256");
  ASSERT_TRUE(jwt) << jwt.error().message;
  EXPECT_TRUE(verifies(*jwt, rsa, false));
  auto wrong = sign_jwt({{"iss", "c"}}, pem_of(rsa), "ES256");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("not an EC (P-256) key"), std::string::npos);
  EXPECT_EQ(wrong.error().message.find("PRIVATE KEY"), std::string::npos);  // the key is never quoted
  EXPECT_FALSE(sign_jwt({}, "-----BEGIN PRIVATE KEY-----\nxx\n-----END PRIVATE KEY-----\n", "ES256"));
  EXPECT_FALSE(sign_jwt({}, pem_of(rsa), "HS256"));
  EVP_PKEY_free(rsa);
}

}  // namespace
}  // namespace sigil::actions
