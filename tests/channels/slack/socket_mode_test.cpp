// Slack's Socket Mode session (channels/slack/socket_mode.h) against the Slack fake (tests/fakes/slack.mjs)
// as a real process: envelopes handed over and acked only once recorded, redelivery of what was not
// recorded, a dropped socket and a refresh `disconnect` with 0 events lost, and a wrong app-level token.
#include "sigil/channels/slack/socket_mode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "channels/slack/slack_fake.h"

namespace sigil::channels::slack {
namespace {

using testing::kAppToken;
using testing::kDm;

class SlackSocketModeTest : public testing::SlackFakeTest {
 protected:
  void SetUp() override {
    SlackFakeTest::SetUp();
    if (HasFatalFailure()) return;
    ws = std::make_unique<net::WebSocketClient>(io);
  }
  void TearDown() override {
    if (session) session->stop();
  }
  void start(std::string token = kAppToken) {
    ApiOptions options;
    options.retry_pause = std::chrono::milliseconds(20);
    app_api = std::make_unique<WebApi>(*http, fake.api(), std::move(token), options);
    session = std::make_unique<SocketMode>(
        *app_api, *ws, SocketModeOptions{}, [this](const boost::json::object& payload, int attempt) {
          std::lock_guard lock(mu);
          if (refuse > 0) {
            --refuse;
            return false;
          }
          ++calls;
          // Recorded once by event_id, as the store records a message
          // once by its key: a redelivery is recognised, not doubled.
          const std::string id(payload.at("event_id").as_string());
          if (std::find(events.begin(), events.end(), id) != events.end()) {
            redelivered_attempts.push_back(attempt);
            return true;
          }
          events.push_back(id);
          attempts.push_back(attempt);
          texts.push_back(std::string(payload.at("event").at("text").as_string()));
          return true;
        });
    session->start();
  }
  template <class Pred>
  bool eventually(Pred pred, std::chrono::milliseconds within = std::chrono::seconds(10)) {
    const auto end = std::chrono::steady_clock::now() + within;
    while (std::chrono::steady_clock::now() < end) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return pred();
  }
  bool connected() { return session->state().connected; }
  std::size_t received() {
    std::lock_guard lock(mu);
    return events.size();
  }
  // The fake's envelopes, each "state/attempt/acked_attempt".
  std::vector<std::string> envelope_states() {
    std::vector<std::string> out;
    const boost::json::value v = fake.admin("GET", "/_fake/socket/envelopes");
    for (const auto& e : v.at("envelopes").as_array()) {
      const auto& o = e.as_object();
      out.push_back(std::string(o.at("state").as_string()) + "/" +
                    std::to_string(o.at("attempt").as_int64()));
    }
    return out;
  }

  std::unique_ptr<net::WebSocketClient> ws;
  std::unique_ptr<WebApi> app_api;
  std::unique_ptr<SocketMode> session;
  std::mutex mu;
  int refuse = 0;  // how many events on_event refuses to record first
  std::vector<std::string> events, texts;
  std::vector<int> attempts, redelivered_attempts;
  int calls = 0;
};

TEST_F(SlackSocketModeTest, AnEventIsHandedOverThenAcked) {
  start();
  ASSERT_TRUE(eventually([&] { return connected(); }));
  fake.user_message("hello");
  ASSERT_TRUE(eventually([&] { return received() == 1; }));
  ASSERT_TRUE(eventually([&] { return envelope_states() == std::vector<std::string>{"acked/0"}; }));
  EXPECT_EQ(texts.at(0), "hello");
  EXPECT_EQ(session->state().acks, 1u);
  // apps.connections.open went with the app-level token.
  for (const auto& e : fake.journal("api")) {
    if (e.at("method").as_string() == "apps.connections.open") {
      EXPECT_EQ(e.at("token_kind").as_string(), "app");
    }
  }
}

TEST_F(SlackSocketModeTest, AnEventNotRecordedIsLeftUnackedAndComesAgain) {
  fake.admin("POST", "/_fake/config", R"({"ack_timeout_ms":300})");
  refuse = 1;
  start();
  ASSERT_TRUE(eventually([&] { return connected(); }));
  fake.user_message("record me");
  ASSERT_TRUE(eventually([&] { return received() == 1; }));
  EXPECT_EQ(attempts.at(0), 1);  // the second delivery
  ASSERT_TRUE(eventually([&] { return envelope_states() == std::vector<std::string>{"acked/1"}; }));
  EXPECT_EQ(session->state().unrecorded, 1u);
}

TEST_F(SlackSocketModeTest, ADroppedSocketReconnectsAndLosesNothing) {
  start();
  ASSERT_TRUE(eventually([&] { return connected(); }));
  fake.user_message("one");
  ASSERT_TRUE(eventually([&] { return received() == 1; }));
  fake.admin("POST", "/_fake/socket/drop", "{}");
  fake.user_message("two");  // while the socket is down (or just back)
  fake.user_message("three");
  ASSERT_TRUE(eventually([&] { return received() == 3; })) << received();
  EXPECT_GE(session->state().connects, 2u);
  EXPECT_EQ(std::set<std::string>(texts.begin(), texts.end()),
            (std::set<std::string>{"one", "two", "three"}));
  // An ack the dropped socket did not carry makes Slack send that event again: it comes as a retry, and
  // the consumer's key (here the event_id) makes it the same one.
  for (int attempt : redelivered_attempts) EXPECT_GE(attempt, 1);
  ASSERT_TRUE(eventually([&] {
    for (const auto& s : envelope_states())
      if (s.rfind("acked/", 0) != 0) return false;
    return true;
  }));
}

TEST_F(SlackSocketModeTest, ARefreshDisconnectOpensANewConnection) {
  start();
  ASSERT_TRUE(eventually([&] { return connected(); }));
  fake.admin("POST", "/_fake/socket/disconnect", R"({"reason":"refresh_requested"})");
  fake.user_message("during", kDm);
  ASSERT_TRUE(eventually([&] { return received() == 1; }));
  EXPECT_EQ(session->state().disconnects, 1u);
  EXPECT_GE(session->state().connects, 2u);
  fake.user_message("after", kDm);
  ASSERT_TRUE(eventually([&] { return received() == 2; }));
  EXPECT_EQ(texts, (std::vector<std::string>{"during", "after"}));
}

TEST_F(SlackSocketModeTest, AWrongAppTokenEndsTheSession) {
  start("xapp-1-wrong");
  ASSERT_TRUE(eventually([&] { return session->state().fatal; }));
  EXPECT_NE(session->state().last_error.find("invalid_auth"), std::string::npos)
      << session->state().last_error;
  // The bot token in its place is refused as the wrong kind.
  session->stop();
  start(testing::kBotToken);
  ASSERT_TRUE(eventually([&] { return session->state().fatal; }));
  EXPECT_NE(session->state().last_error.find("not_allowed_token_type"), std::string::npos);
}

}  // namespace
}  // namespace sigil::channels::slack
