#include "server/origin_policy.h"

#include <gtest/gtest.h>

#include "support/expect_each.h"

namespace sigil::server {
namespace {

TEST(OriginPolicyTest, HostNamesAreParsedStrictly) {
  test::expect_each(OriginPolicy::host_name, {
                                                 {"LocalHost:8080", "localhost"},
                                                 {"[::1]:80", "::1"},
                                                 {" example.com. ", "example.com"},
                                                 {"a.b:", ""},
                                                 {"a.b:99999999", ""},
                                                 {"a.b:80x", ""},
                                                 {"evil.example@127.0.0.1", ""},
                                                 {"[::1", ""},
                                                 {"", ""},
                                             });
}

TEST(OriginPolicyTest, OriginsAreNormalized) {
  test::expect_each(OriginPolicy::normalize_origin,
                    {
                        {"HTTP://LocalHost:80", "http://localhost"},
                        {"https://a.example:443", "https://a.example"},
                        {"https://a.example:8443/path?q", "https://a.example:8443"},
                        {"http://[::1]:8080", "http://[::1]:8080"},
                        {"null", ""},
                        {"file://", ""},
                        {"chrome-extension://abc", ""},
                    });
}

TEST(OriginPolicyTest, ALoopbackGatewayAnswersToItsOwnNamesOnly) {
  const OriginPolicy p({"127.0.0.1", 8080, "", {}, {}});
  for (const char* host : {"127.0.0.1:8080", "localhost", "localhost:1234", "[::1]:8080", ""})
    EXPECT_TRUE(p.host_allowed(host)) << host;
  for (const char* host : {"evil.example", "evil.example:8080", "127.0.0.2:8080", "10.0.0.1", "local host"})
    EXPECT_FALSE(p.host_allowed(host)) << host;
  EXPECT_TRUE(p.origin_allowed("http://127.0.0.1:8080", "127.0.0.1:8080"));
  EXPECT_TRUE(p.origin_allowed("http://localhost:8080", "127.0.0.1:8080"));
  EXPECT_TRUE(p.origin_allowed("http://[::1]:8080", "localhost:8080"));
  EXPECT_FALSE(p.origin_allowed("http://127.0.0.1:9999", "127.0.0.1:8080"));  // another local server
  EXPECT_FALSE(p.origin_allowed("http://127.0.0.2:8080", "127.0.0.1:8080"));
  EXPECT_FALSE(p.origin_allowed("https://127.0.0.1:8080", "127.0.0.1:8080"));
  EXPECT_FALSE(p.origin_allowed("http://evil.example", "127.0.0.1:8080"));
  EXPECT_FALSE(p.origin_allowed("null", "127.0.0.1:8080"));
  // A rebound name is same-origin with itself, but its Host is not this gateway's.
  EXPECT_FALSE(p.origin_allowed("http://evil.example:8080", "evil.example:8080"));
}

TEST(OriginPolicyTest, PublicUrlAllowedListsAndWildcards) {
  const OriginPolicy p(
      {"127.0.0.1", 8080, "https://chat.example.com/app/", {"http://tools.lan:3000"}, {"sigil.lan"}});
  EXPECT_TRUE(p.host_allowed("chat.example.com"));
  EXPECT_TRUE(p.host_allowed("sigil.lan:8080"));
  EXPECT_FALSE(p.host_allowed("tools.lan"));  // an allowed origin is not a name of ours
  EXPECT_TRUE(p.origin_allowed("https://chat.example.com", "127.0.0.1:8080"));
  EXPECT_TRUE(p.origin_allowed("http://tools.lan:3000", "127.0.0.1:8080"));
  EXPECT_FALSE(p.origin_allowed("http://tools.lan:3001", "127.0.0.1:8080"));
  EXPECT_TRUE(p.origin_allowed("http://sigil.lan:8080", "sigil.lan:8080"));
  EXPECT_TRUE(p.origin_allowed("http://sigil.lan", "sigil.lan:80"));

  const OriginPolicy any({"127.0.0.1", 8080, "", {}, {"*"}});
  EXPECT_TRUE(any.host_allowed("whatever.example"));

  // Listening on every address: any IP literal is the gateway's, names must be listed.
  const OriginPolicy wild({"0.0.0.0", 8080, "", {}, {}});
  EXPECT_TRUE(wild.host_allowed("192.168.1.20:8080"));
  EXPECT_TRUE(wild.host_allowed("[fe80::1]:8080"));
  EXPECT_TRUE(wild.host_allowed("localhost"));
  EXPECT_FALSE(wild.host_allowed("evil.example:8080"));
  EXPECT_TRUE(wild.origin_allowed("http://192.168.1.20:8080", "192.168.1.20:8080"));
  EXPECT_FALSE(wild.origin_allowed("http://192.168.1.21:8080", "192.168.1.20:8080"));
}

}  // namespace
}  // namespace sigil::server
