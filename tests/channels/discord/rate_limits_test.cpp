// Discord's rate-limit bookkeeping (channels/discord/rate_limits.h).
#include "sigil/channels/discord/rate_limits.h"

#include <gtest/gtest.h>

#include "sigil/channels/discord/rest_api.h"
#include "sigil/net/io_threads.h"

namespace sigil::channels::discord {
namespace {

using std::chrono::milliseconds;

net::Headers headers(std::string bucket, std::string remaining, std::string reset_after) {
  return {{"X-RateLimit-Bucket", std::move(bucket)},
          {"X-RateLimit-Remaining", std::move(remaining)},
          {"X-RateLimit-Reset-After", std::move(reset_after)}};
}

TEST(DiscordRateLimits, RouteKeysKeepOnlyTheMajorParameter) {
  EXPECT_EQ(route_key("POST", "/channels/123/messages"), "POST /channels/123/messages");
  EXPECT_EQ(route_key("PATCH", "/channels/123/messages/456"), "PATCH /channels/123/messages/{id}");
  EXPECT_EQ(route_key("PUT", "/channels/123/messages/456/reactions/%F0%9F%91%8D/@me"),
            "PUT /channels/123/messages/{id}/reactions/{emoji}/@me");
  EXPECT_EQ(route_key("GET", "/gateway/bot"), "GET /gateway/bot");
}

TEST(DiscordRateLimits, AnEmptyBucketWaitsForItsReset) {
  RateLimits limits;
  const auto t0 = RateClock::now();
  const std::string route = "POST /channels/1/messages";
  EXPECT_EQ(limits.wait_before(route, t0), milliseconds(0));
  limits.observe(route, 200, headers("abc", "1", "2.5"), "", t0);
  EXPECT_EQ(limits.remaining(route), 1);
  EXPECT_EQ(limits.wait_before(route, t0), milliseconds(0));  // one left: go
  limits.observe(route, 200, headers("abc", "0", "2.5"), "", t0);
  EXPECT_EQ(limits.wait_before(route, t0), milliseconds(2500));
  EXPECT_EQ(limits.wait_before(route, t0 + milliseconds(2000)), milliseconds(500));
  EXPECT_EQ(limits.wait_before(route, t0 + milliseconds(2600)), milliseconds(0));   // reset passed
  EXPECT_EQ(limits.wait_before("POST /channels/2/messages", t0), milliseconds(0));  // another channel
}

TEST(DiscordRateLimits, RoutesSharingABucketHashShareItsState) {
  RateLimits limits;
  const auto t0 = RateClock::now();
  limits.observe("PATCH /channels/1/messages/{id}", 200, headers("shared", "3", "1"), "", t0);
  limits.observe("DELETE /channels/1/messages/{id}", 200, headers("shared", "0", "1"), "", t0);
  EXPECT_EQ(limits.bucket_of("PATCH /channels/1/messages/{id}"), "shared");
  EXPECT_EQ(limits.wait_before("PATCH /channels/1/messages/{id}", t0), milliseconds(1000));
}

TEST(DiscordRateLimits, A429WaitsRetryAfterFromTheBody) {
  RateLimits limits;
  const auto t0 = RateClock::now();
  const std::string route = "POST /channels/1/messages";
  limits.observe(route, 429, {{"Retry-After", "2"}},
                 R"({"message":"You are being rate limited.","retry_after":1.25,"global":false})", t0);
  EXPECT_EQ(limits.wait_before(route, t0), milliseconds(1250));
  EXPECT_EQ(limits.wait_before("GET /gateway/bot", t0), milliseconds(0));  // not global
  const auto r = read_429(429, {{"Retry-After", "3"}}, "not json");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->retry_after, milliseconds(3000));  // the header when the body has none
  EXPECT_FALSE(read_429(200, {}, "{}").has_value());
}

TEST(DiscordRateLimits, TheGlobalLimitStopsEveryRoute) {
  RateLimits limits;
  const auto t0 = RateClock::now();
  limits.observe("POST /channels/1/messages", 429, {{"X-RateLimit-Global", "true"}},
                 R"({"retry_after":0.5,"global":true})", t0);
  EXPECT_EQ(limits.wait_before("GET /gateway/bot", t0), milliseconds(500));
  EXPECT_EQ(limits.wait_before("POST /channels/9/typing", t0 + milliseconds(100)), milliseconds(400));
  EXPECT_EQ(limits.wait_before("POST /channels/9/typing", t0 + milliseconds(600)), milliseconds(0));
}

TEST(DiscordRest, TheBotIdComesFromTheToken) {
  EXPECT_EQ(bot_id_from_token("MTIwMDAwMDAwMDAwMDAwMDAwMQ.GfAkEt.sigil-test-token-not-a-secret"),
            "1200000000000000001");
  EXPECT_EQ(bot_id_from_token("not base64!"), "unknown");
}

TEST(DiscordRest, AttachmentsComeOnlyFromDiscordsCdnOrTheApisOrigin) {
  net::HttpClient http(std::make_shared<net::IoThreads>(1));
  // Port 9 (discard) on loopback: nothing listens, so an allowed URL fails at connecting, not at the check.
  RestApi api(http, "http://127.0.0.1:9/api/v10", "token");
  for (const char* url : {"https://example.com/attachments/1/2/x.png", "http://cdn.discordapp.com/a/x.png",
                          "https://cdn.discordapp.com.evil.example/a/x.png", "http://169.254.169.254/latest",
                          "http://127.0.0.1:10/attachments/x.png", "not a url"}) {
    auto r = api.download(url, 1000);
    ASSERT_FALSE(r) << url;
    EXPECT_EQ(r.error().message, "not a Discord attachment URL") << url;
  }
  auto same_origin = api.download("http://127.0.0.1:9/attachments/1/2/x.png", 1000);
  ASSERT_FALSE(same_origin);
  EXPECT_NE(same_origin.error().message, "not a Discord attachment URL");
}

}  // namespace
}  // namespace sigil::channels::discord
