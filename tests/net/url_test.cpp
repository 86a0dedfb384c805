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

TEST(Url, WithoutTrailingSlashes) {
  EXPECT_EQ(without_trailing_slashes("https://api.example.com/v1/"), "https://api.example.com/v1");
  EXPECT_EQ(without_trailing_slashes("https://api.example.com//"), "https://api.example.com");
  EXPECT_EQ(without_trailing_slashes("https://api.example.com/v1"), "https://api.example.com/v1");
  EXPECT_EQ(without_trailing_slashes("/"), "");  // the root path
  EXPECT_EQ(without_trailing_slashes(""), "");
}

TEST(PercentEncoding, Encoding) {
  EXPECT_EQ(percent_encode("a-b_c.d~e"), "a-b_c.d~e");  // RFC 3986 unreserved characters stay
  EXPECT_EQ(percent_encode("my report/ä.pdf"), "my%20report%2F%C3%A4.pdf");
  EXPECT_EQ(percent_encode("👍"), "%F0%9F%91%8D");
  EXPECT_EQ(percent_encode("sigil:123&q=a+b"), "sigil%3A123%26q%3Da%2Bb");
  EXPECT_EQ(percent_encode(std::string("\0\xff", 2)), "%00%FF");
  for (const std::string s : {"", "a b", "100%", "caf\xC3\xA9?x=1&y=2#z"})
    EXPECT_EQ(percent_decode(percent_encode(s), false), s) << s;
}

TEST(PercentEncoding, Decoding) {
  EXPECT_EQ(percent_decode("a%20b%2fc%2F", false), "a b/c/");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
  EXPECT_EQ(percent_decode("%2B", true), "+");
  EXPECT_EQ(percent_decode("%00%ff", false), std::string("\0\xff", 2));
  EXPECT_EQ(percent_decode("caf\xC3\xA9", false), "caf\xC3\xA9");  // raw bytes stay
  EXPECT_EQ(percent_decode("", true), "");
  for (const char* broken : {"%", "%4", "a%", "%zz", "%g0", "%0g", "x%2"})
    EXPECT_FALSE(percent_decode(broken, true).has_value()) << broken;
}

}  // namespace
}  // namespace sigil::net
