// Matrix's client-server API client (channels/matrix/client_api.h) against the Matrix fake
// (tests/fakes/matrix.mjs) as a real process: Matrix's errors, 429 M_LIMIT_EXCEEDED with retry_after_ms,
// 5xx, and sends repeated under the same txnId after an unknown outcome, which the homeserver stores once.
#include "sigil/channels/matrix/client_api.h"

#include <gtest/gtest.h>

#include <chrono>

#include "channels/matrix/matrix_fake.h"

namespace sigil::channels::matrix {
namespace {

using testing::kDm;
using testing::kToken;

class MatrixClientApiTest : public testing::MatrixFakeTest {
 protected:
  std::unique_ptr<ClientApi> api(ApiOptions options = {}, std::string token = kToken) {
    options.retry_pause = std::chrono::milliseconds(20);
    return std::make_unique<ClientApi>(*http, fake.url() + "/", std::move(token), options);
  }
  static boost::json::object text(const std::string& body) { return {{"msgtype", "m.text"}, {"body", body}}; }
  std::size_t journal_count(const std::string& route) {
    std::size_t n = 0;
    for (const auto& e : fake.journal("api"))
      if (e.as_object().if_contains("route") && e.at("route").as_string() == route) ++n;
    return n;
  }
};

TEST_F(MatrixClientApiTest, SendsAnEventAndReadsMatrixErrors) {
  auto a = api();
  const ApiOutcome sent = a->send_event(kDm, "m.room.message", text("hello"), "t1");
  ASSERT_TRUE(sent.ok()) << sent.summary();
  const auto mine = fake.events_by(kDm, testing::kBot);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].at("content").at("body").as_string(), "hello");
  EXPECT_EQ(mine[0].at("event_id").as_string(), sent.body.at("event_id").as_string());

  const ApiOutcome outside = a->send_event("!nowhere:sigil.test", "m.room.message", text("x"), "t2");
  EXPECT_EQ(outside.kind, CallEnd::Refused);
  EXPECT_EQ(outside.status, 403);
  EXPECT_EQ(outside.errcode, "M_FORBIDDEN");
  EXPECT_NE(outside.summary().find("M_FORBIDDEN"), std::string::npos);

  auto wrong = api({}, "syt_not_a_token");
  const ApiOutcome who = wrong->call("GET", "/_matrix/client/v3/account/whoami", "", true);
  EXPECT_EQ(who.errcode, "M_UNKNOWN_TOKEN");
  EXPECT_EQ(who.summary().find("syt_"), std::string::npos);  // the token is never in an outcome
}

TEST_F(MatrixClientApiTest, WaitsOutA429ByItsRetryAfterMs) {
  fake.fault({{"match", "send"}, {"kind", "rate_limit"}, {"retry_after_ms", 300}});
  auto a = api();
  const auto t0 = std::chrono::steady_clock::now();
  const ApiOutcome o = a->send_event(kDm, "m.room.message", text("after the limit"), "t1");
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(o.ok()) << o.summary();
  EXPECT_EQ(o.retries, 1);
  EXPECT_GE(waited, std::chrono::milliseconds(280));
  EXPECT_EQ(fake.events_by(kDm, testing::kBot).size(), 1u);
}

TEST_F(MatrixClientApiTest, AWaitLongerThanMaxWaitIsNotSent) {
  fake.fault({{"match", "send"}, {"kind", "rate_limit"}, {"retry_after_ms", 120'000}});
  ApiOptions options;
  options.max_wait = std::chrono::seconds(5);
  auto a = api(options);
  const ApiOutcome o = a->send_event(kDm, "m.room.message", text("x"), "t1");
  EXPECT_EQ(o.kind, CallEnd::NotSent);
  EXPECT_NE(o.error.find("rate limited"), std::string::npos);
  EXPECT_TRUE(fake.events_by(kDm, testing::kBot).empty());
}

TEST_F(MatrixClientApiTest, ATimeOutAfterTheSendIsRepeatedWithTheSameTxnIdAndStoredOnce) {
  fake.fault({{"match", "send"}, {"kind", "timeout"}});
  ApiOptions options;
  options.request_timeout = std::chrono::milliseconds(400);
  auto a = api(options);
  const ApiOutcome o = a->send_event(kDm, "m.room.message", text("exactly once"), "txn-1");
  ASSERT_TRUE(o.ok()) << o.summary();
  EXPECT_EQ(o.retries, 1);
  const auto mine = fake.events_by(kDm, testing::kBot);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].at("event_id").as_string(), o.body.at("event_id").as_string());
  EXPECT_EQ(journal_count("send"), 2u);
}

TEST_F(MatrixClientApiTest, A5xxAndADroppedSocketAreRepeatedToo) {
  fake.fault({{"match", "send"}, {"kind", "status"}, {"status", 502}, {"body", "<html>Bad Gateway</html>"}});
  auto a = api();
  ASSERT_TRUE(a->send_event(kDm, "m.room.message", text("one"), "a").ok());
  fake.fault({{"match", "send"}, {"kind", "drop_after_send"}});
  ASSERT_TRUE(a->send_event(kDm, "m.room.message", text("two"), "b").ok());
  const auto mine = fake.events_by(kDm, testing::kBot);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].at("content").at("body").as_string(), "one");
  EXPECT_EQ(mine[1].at("content").at("body").as_string(), "two");
}

TEST_F(MatrixClientApiTest, UploadsAndDownloadsMediaOnlyByMxc) {
  auto a = api();
  const ApiOutcome up = a->upload("hello bytes", "text/plain", "note.txt");
  ASSERT_TRUE(up.ok()) << up.summary();
  const std::string uri(up.body.at("content_uri").as_string());
  ASSERT_TRUE(uri.starts_with("mxc://sigil.test/"));
  const auto got = a->download(uri, 1 << 20);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got.value(), "hello bytes");
  EXPECT_FALSE(a->download("https://evil.example/x", 1 << 20).ok());
  EXPECT_FALSE(a->download("mxc://sigil.test/../../x", 1 << 20).ok());
  const auto small = a->download(uri, 4);
  ASSERT_FALSE(small.ok());
  EXPECT_TRUE(small.error().too_large);
}

}  // namespace
}  // namespace sigil::channels::matrix
