// The address classifier behind the SSRF guard: every special-purpose range, IPv4 inside IPv6, and
// public addresses that must stay fetchable.
#include "sigil/net/ip_address.h"

#include <gtest/gtest.h>

#include "support/expect_each.h"

namespace sigil::net {
namespace {

std::optional<std::string> why(const char* text) {
  auto address = IpAddress::parse(text);
  EXPECT_TRUE(address) << text;
  return address ? special_purpose(*address) : std::optional<std::string>("not an address");
}

TEST(IpAddress, ParsesOnlyStrictLiterals) {
  EXPECT_TRUE(IpAddress::parse("127.0.0.1"));
  EXPECT_TRUE(IpAddress::parse("::ffff:127.0.0.1"));
  EXPECT_TRUE(IpAddress::parse("fe80::1"));
  EXPECT_FALSE(IpAddress::parse("127.1"));
  EXPECT_FALSE(IpAddress::parse("2130706433"));
  EXPECT_FALSE(IpAddress::parse("0x7f.0.0.1"));
  EXPECT_FALSE(IpAddress::parse("localhost"));
  EXPECT_FALSE(IpAddress::parse("[::1]"));
  EXPECT_FALSE(IpAddress::parse(""));
  EXPECT_EQ(IpAddress::parse("::FFFF:7f00:1")->to_string(), "::ffff:127.0.0.1");
}

TEST(IpAddress, RangesContainWhatTheirPrefixSays) {
  auto range = IpRange::parse("172.16.0.0/12");
  ASSERT_TRUE(range);
  EXPECT_TRUE(range->contains(*IpAddress::parse("172.31.255.255")));
  EXPECT_FALSE(range->contains(*IpAddress::parse("172.32.0.0")));
  EXPECT_FALSE(range->contains(*IpAddress::parse("::ffff:172.16.0.1")));  // another family
  EXPECT_TRUE(IpRange::parse("127.0.0.1")->contains(*IpAddress::parse("127.0.0.1")));
  EXPECT_FALSE(IpRange::parse("127.0.0.1")->contains(*IpAddress::parse("127.0.0.2")));
  EXPECT_FALSE(IpRange::parse("10.0.0.0/33"));
  EXPECT_FALSE(IpRange::parse("10.0.0.0/"));
  EXPECT_FALSE(IpRange::parse("10.0.0.0/8x"));
  EXPECT_TRUE(IpRange::parse("fd00::/8"));
}

TEST(SpecialPurpose, RefusesEveryInternalRange) {
  for (const char* address : {"10.0.0.1",
                              "10.255.255.255",
                              "172.16.0.1",
                              "172.31.0.1",
                              "192.168.1.1",
                              "100.64.0.1",
                              "100.127.255.255",
                              "127.0.0.1",
                              "127.9.9.9",
                              "169.254.169.254",
                              "169.254.0.1",
                              "0.0.0.0",
                              "0.1.2.3",
                              "224.0.0.1",
                              "255.255.255.255",
                              "192.0.2.1",
                              "198.18.0.1",
                              "::",
                              "::1",
                              "fc00::1",
                              "fd00:ec2::254",
                              "fe80::1",
                              "ff02::1",
                              "2001:db8::1",
                              "::ffff:127.0.0.1",
                              "::ffff:10.0.0.1",
                              "::ffff:169.254.169.254",
                              "::127.0.0.1",
                              "64:ff9b::a9fe:a9fe",
                              "2002:7f00:1::1",
                              "::ffff:0.0.0.0"}) {
    EXPECT_TRUE(why(address)) << address << " must be refused";
  }
}

TEST(SpecialPurpose, SaysWhichRange) {
  test::expect_each(
      [](const std::string& address) { return why(address.c_str()); },
      {
          {"127.0.0.1", "loopback (127.0.0.0/8)"},
          {"::1", "loopback (::1)"},
          {"169.254.169.254", "link-local (169.254.0.0/16; cloud metadata lives at 169.254.169.254)"},
          {"::ffff:127.0.0.1", "loopback (127.0.0.0/8) inside the IPv6 address ::ffff:127.0.0.1"},
          {"fd12::1", "unique local, private (fc00::/7)"},
      });
}

TEST(SpecialPurpose, LetsPublicAddressesThrough) {
  for (const char* address :
       {"93.184.216.34", "1.1.1.1", "8.8.8.8", "172.32.0.1", "100.128.0.1", "169.253.0.1", "11.0.0.1",
        "2606:4700:4700::1111", "2a00:1450:4001:82b::200e", "::ffff:93.184.216.34", "2002:5db8:d822::1"}) {
    EXPECT_FALSE(why(address)) << address << ": " << why(address).value_or("");
  }
}

}  // namespace
}  // namespace sigil::net
