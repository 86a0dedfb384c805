// The SSRF guard: one resolution, every address judged, allow_private as the only way through.
#include "sigil/net/ssrf_guard.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "support/stub_resolver.h"

namespace sigil::net {
namespace {

using test::StubResolver;

struct Guarded {
  std::shared_ptr<StubResolver> dns = std::make_shared<StubResolver>();
  SsrfGuard guard(std::vector<std::string> allow = {}) { return SsrfGuard({std::move(allow)}, dns); }
};

TEST(SsrfGuard, APublicNameIsCheckedAndPinned) {
  Guarded g;
  g.dns->set("example.com", {{"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"}});
  auto target = g.guard().check("https://Example.com/a?b=1");
  ASSERT_TRUE(target) << target.error();
  EXPECT_EQ(target->address.to_string(), "93.184.216.34");
  EXPECT_EQ(target->url.host, "example.com");
  EXPECT_EQ(g.dns->calls("example.com"), 1);
}

TEST(SsrfGuard, AnyInternalAddressOfTheNameRefusesIt) {
  Guarded g;
  g.dns->set("mixed.test", {{"93.184.216.34", "10.1.2.3"}});
  auto target = g.guard().check("http://mixed.test/");
  ASSERT_FALSE(target);
  EXPECT_EQ(
      target.error(),
      "10.1.2.3 (the address of mixed.test) is private (10.0.0.0/8): pages on private or internal networks "
      "are not fetched");
}

TEST(SsrfGuard, LiteralsAreJudgedAsWritten) {
  Guarded g;
  for (const char* url :
       {"http://127.0.0.1/", "http://[::1]:8080/", "http://[::ffff:127.0.0.1]/",
        "http://169.254.169.254/latest/meta-data/", "http://0.0.0.0/", "http://[fe80::1]/",
        "http://192.168.0.1/", "http://172.16.5.4/", "http://100.64.0.1/", "http://[fc00::1]/"}) {
    auto target = g.guard().check(url);
    EXPECT_FALSE(target) << url;
  }
  EXPECT_EQ(g.guard().check("http://[::ffff:127.0.0.1]/").error(),
            "::ffff:127.0.0.1 is loopback (127.0.0.0/8) inside the IPv6 address ::ffff:127.0.0.1: pages on "
            "private or internal networks are not fetched");
}

TEST(SsrfGuard, OnlyHttpAndHttps) {
  Guarded g;
  EXPECT_FALSE(g.guard().check("ftp://example.com/"));
  EXPECT_FALSE(g.guard().check("file:///etc/passwd"));
  EXPECT_EQ(g.guard().check("ws://example.com/").error(), "only http:// and https:// pages can be fetched");
  EXPECT_FALSE(g.guard().check("http://user:pw@example.com/"));
}

TEST(SsrfGuard, AResolverFailureIsARefusalWithItsReason) {
  Guarded g;
  auto target = g.guard().check("http://nowhere.test/");
  ASSERT_FALSE(target);
  EXPECT_EQ(target.error(), "cannot resolve nowhere.test: Name or service not known");
}

TEST(SsrfGuard, AllowPrivateLetsANamedHostOrARangeThrough) {
  Guarded g;
  g.dns->set("searx.lan", {{"192.168.1.20"}});
  g.dns->set("other.lan", {{"192.168.1.21"}});
  EXPECT_FALSE(g.guard().check("http://searx.lan/"));
  EXPECT_TRUE(g.guard({"SEARX.lan"}).check("http://searx.lan/"));
  EXPECT_FALSE(g.guard({"searx.lan"}).check("http://other.lan/"));  // the name, not its neighbours
  EXPECT_TRUE(g.guard({"192.168.1.0/24"}).check("http://other.lan/"));
  EXPECT_FALSE(g.guard({"192.168.1.20"}).check("http://other.lan/"));
  EXPECT_TRUE(g.guard({"127.0.0.1"}).check("http://[::ffff:127.0.0.1]/"));  // one destination, two spellings
  EXPECT_FALSE(g.guard({"127.0.0.1"}).check("http://127.0.0.2/"));
}

TEST(SsrfGuard, BadAllowPrivateEntriesAreRefused) {
  EXPECT_EQ(allow_private_entry_error("10.0.0.0/8"), "");
  EXPECT_EQ(allow_private_entry_error("searx.lan"), "");
  EXPECT_NE(allow_private_entry_error("10.0.0.0/40"), "");
  EXPECT_NE(allow_private_entry_error("http://x"), "");
  EXPECT_NE(allow_private_entry_error("a b"), "");
  EXPECT_NE(allow_private_entry_error(""), "");
  Guarded g;
  EXPECT_THROW(g.guard({"not a host"}), std::invalid_argument);
}

}  // namespace
}  // namespace sigil::net
