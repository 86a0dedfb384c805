#include "actions/jwt_assertion.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json/serialize.hpp>
#include <memory>

#include "sigil/text/base64.h"

namespace sigil::actions {
namespace {

Error jwt_error(std::string message) { return make_error(ErrorCode::invalid_argument, "JWT: " + message); }

struct Free {
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
  void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};

}  // namespace

Result<std::string> sign_jwt(const boost::json::object& claims, std::string_view private_key_pem,
                             std::string_view algorithm) {
  if (algorithm != "ES256" && algorithm != "RS256")
    return jwt_error("the signing algorithm must be ES256 or RS256, not " +
                     std::string(algorithm.substr(0, 20)));
  std::unique_ptr<BIO, Free> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())));
  std::unique_ptr<EVP_PKEY, Free> key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                                          : nullptr);
  if (!key) return jwt_error("the private key is not a PEM private key");
  const bool ec = algorithm == "ES256";
  if (ec ? EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_EC : EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA)
    return jwt_error(std::string("the private key is not ") + (ec ? "an EC (P-256)" : "an RSA") + " key");

  const boost::json::object header{{"alg", algorithm}, {"typ", "JWT"}};
  const std::string input = text::base64url_encode(boost::json::serialize(header)) + "." +
                            text::base64url_encode(boost::json::serialize(claims));
  std::unique_ptr<EVP_MD_CTX, Free> ctx(EVP_MD_CTX_new());
  std::size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length, data, input.size()) != 1)
    return jwt_error("signing failed");
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length, data,
                     input.size()) != 1)
    return jwt_error("signing failed");
  signature.resize(length);
  if (ec) {
    // OpenSSL gives DER; JWS (RFC 7518 3.4) wants the two 32-byte integers side by side.
    const auto* der = reinterpret_cast<const unsigned char*>(signature.data());
    std::unique_ptr<ECDSA_SIG, Free> sig(d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(signature.size())));
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    if (sig) ECDSA_SIG_get0(sig.get(), &r, &s);
    std::string raw(64, '\0');
    auto* out = reinterpret_cast<unsigned char*>(raw.data());
    if (r == nullptr || s == nullptr || BN_bn2binpad(r, out, 32) != 32 || BN_bn2binpad(s, out + 32, 32) != 32)
      return jwt_error("the EC signature does not fit P-256");
    signature = std::move(raw);
  }
  return input + "." + text::base64url_encode(signature);
}

}  // namespace sigil::actions
