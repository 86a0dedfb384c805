#include "sigil/net/url.h"

#include <gtest/gtest.h>

namespace sigil::net {
namespace {

Url ok(std::string_view text) {
  auto parsed = parse_url(text);
  if (auto* error = std::get_if<std::string>(&parsed)) ADD_FAILURE() << text << ": " << *error;
  return std::get_if<Url>(&parsed) ? std::get<Url>(parsed) : Url{};
}

std::string error_of(std::string_view text) {
  auto parsed = parse_url(text);
  if (std::holds_alternative<Url>(parsed)) return "";
  return std::get<std::string>(parsed);
}

TEST(Url, SplitsAndDefaults) {
  Url url = ok("HTTPS://api.example.com/v1/chat?x=1&y=2#frag");
  EXPECT_EQ(url.scheme, "https");
  EXPECT_EQ(url.host, "api.example.com");
  EXPECT_EQ(url.port, "443");
  EXPECT_EQ(url.path, "/v1/chat");
  EXPECT_EQ(url.query, "x=1&y=2");
  EXPECT_EQ(url.target(), "/v1/chat?x=1&y=2");
  EXPECT_EQ(url.authority(), "api.example.com");
  EXPECT_EQ(url.where(), "api.example.com:443");
  EXPECT_TRUE(url.secure());
  EXPECT_FALSE(url.host_is_ip);

  Url bare = ok("ws://gateway.local:8080");
  EXPECT_EQ(bare.path, "/");
  EXPECT_EQ(bare.target(), "/");
  EXPECT_EQ(bare.authority(), "gateway.local:8080");
  EXPECT_FALSE(bare.secure());

  EXPECT_EQ(ok("wss://x?q").target(), "/?q");
}

TEST(Url, IpLiterals) {
  Url v4 = ok("http://127.0.0.1:8080/a");
  EXPECT_TRUE(v4.host_is_ip);
  EXPECT_EQ(v4.authority(), "127.0.0.1:8080");
  Url v6 = ok("https://[::1]:8443/");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_TRUE(v6.host_is_ip);
  EXPECT_EQ(v6.authority(), "[::1]:8443");
  EXPECT_EQ(ok("http://[::1]/").authority(), "[::1]");
}

TEST(Url, RefusesWhatCannotBeSentSafely) {
  EXPECT_NE(error_of("ftp://example.com").find("must start with"), std::string::npos);
  EXPECT_NE(error_of("example.com/path").find("must start with"), std::string::npos);
  EXPECT_NE(error_of("http://").find("no host"), std::string::npos);
  EXPECT_NE(error_of("http://:80/").find("no host"), std::string::npos);
  EXPECT_NE(error_of("http://host:0/").find("bad port"), std::string::npos);
  EXPECT_NE(error_of("http://host:65536/").find("bad port"), std::string::npos);
  EXPECT_NE(error_of("http://host:8a/").find("bad port"), std::string::npos);
  EXPECT_NE(error_of("http://[::1/").find("IPv6"), std::string::npos);
  // Credentials are refused, and the message does not repeat them.
  std::string credentials = error_of("https://user:secret@host/");
  EXPECT_NE(credentials.find("credentials"), std::string::npos);
  EXPECT_EQ(credentials.find("secret"), std::string::npos);
  EXPECT_NE(error_of("http://host/a b").find("space or control"), std::string::npos);
  EXPECT_NE(error_of("http://host/a\r\nX-Injected: 1").find("space or control"), std::string::npos);
}

}  // namespace
}  // namespace sigil::net
