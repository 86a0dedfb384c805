// A signed JWT (RFC 7519, compact form) for a client assertion (RFC 7523, private_key_jwt): what an OAuth
// client sends instead of a secret when it holds a private key.
//
// What it promises: header {"alg", "typ": "JWT"} and the given claims, signed with the PEM private key
// (PKCS#8 or traditional): ES256 (P-256, the signature as r||s, 64 bytes, as JWS wants, not DER) or RS256.
// An unreadable key, or one that does not fit the algorithm, is an error that never quotes the key.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "sigil/actions/result.h"

namespace sigil::actions {

Result<std::string> sign_jwt(const boost::json::object& claims, std::string_view private_key_pem,
                             std::string_view algorithm);

}  // namespace sigil::actions
