// The Discord gateway's state machine against the real fake over loopback (channels/discord/gateway.h):
// HELLO -> IDENTIFY -> READY, a dispatch handed over once, RESUME with the last seq after a drop (the message
// written during the drop still arrives, once), INVALID_SESSION -> a fresh IDENTIFY.
#include "sigil/channels/discord/gateway.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "channels/discord/discord_fake.h"
#include "sigil/channels/discord/inbound.h"

namespace sigil::channels::discord {
namespace {

template <class Pred>
bool eventually(Pred pred, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

struct Seen {
  std::mutex mu;
  std::map<std::string, int> messages;  // content -> times handed over
  std::vector<GatewaySession> sessions;
  int count(const std::string& content) {
    std::lock_guard lock(mu);
    return messages.count(content) ? messages[content] : 0;
  }
};

class DiscordGateway : public testing::DiscordFakeTest {
 protected:
  void SetUp() override {
    DiscordFakeTest::SetUp();
    if (HasFatalFailure()) return;
    ws = std::make_unique<net::WebSocketClient>(io);
    rest = std::make_unique<RestApi>(*http, fake.api(), testing::kToken);
  }
  std::unique_ptr<Gateway> make(GatewaySession resume = {}) {
    GatewayOptions o;
    o.token = testing::kToken;
    o.resume = std::move(resume);
    return std::make_unique<Gateway>(
        *rest, *ws, o,
        [this](std::string_view type, const boost::json::object& d) {
          if (type == "MESSAGE_CREATE")
            if (auto m = read_message_create(d); m && m->author_id != testing::kBot) {
              std::lock_guard lock(seen.mu);
              ++seen.messages[m->content];
            }
          return true;
        },
        [this](const GatewaySession& s) {
          std::lock_guard lock(seen.mu);
          seen.sessions.push_back(s);
        });
  }
  void write(const std::string& content) { fake.user_message(content); }
  std::vector<boost::json::object> gateway_in(std::int64_t op) {
    std::vector<boost::json::object> out;
    for (const auto& e : fake.journal("gateway")) {
      const auto& o = e.as_object();
      if (o.at("direction").as_string() == "in" && o.at("op").as_int64() == op) out.push_back(o);
    }
    return out;
  }

  std::unique_ptr<net::WebSocketClient> ws;
  std::unique_ptr<RestApi> rest;
  Seen seen;
};

TEST_F(DiscordGateway, HelloIdentifyReadyThenMessages) {
  auto gw = make();
  gw->start();
  ASSERT_TRUE(eventually([&] { return gw->state().connected; })) << gw->state().last_error;
  const GatewayState s = gw->state();
  EXPECT_EQ(s.identifies, 1u);
  EXPECT_EQ(s.bot_id, testing::kBot);
  EXPECT_FALSE(s.session.session_id.empty());
  const auto identify = gateway_in(2);
  ASSERT_EQ(identify.size(), 1u);
  EXPECT_EQ(identify[0].at("intents").as_int64(),
            static_cast<std::int64_t>(kIntentGuildMessages | kIntentDirectMessages | kIntentMessageContent));
  write("hello gateway");
  ASSERT_TRUE(eventually([&] { return seen.count("hello gateway") == 1; }));
  // Heartbeats go out and are acknowledged (the fake's interval is 1 s; a missed one would close 4009).
  ASSERT_TRUE(eventually([&] { return gateway_in(1).size() >= 2; }));
  EXPECT_EQ(gw->state().missed_acks, 0u);
  EXPECT_TRUE(gw->state().connected);
  gw->stop();
}

TEST_F(DiscordGateway, ResumesAfterADropWithTheLastSeqAndLosesNothing) {
  auto gw = make();
  gw->start();
  ASSERT_TRUE(eventually([&] { return gw->state().connected; }));
  write("before the drop");
  ASSERT_TRUE(eventually([&] { return seen.count("before the drop") == 1; }));
  const std::int64_t seq = gw->state().session.seq;
  fake.admin("POST", "/_fake/gateway/drop", "{}");
  write("during the drop");  // buffered by the fake for the session, replayed on RESUME
  ASSERT_TRUE(eventually([&] { return gw->state().resumes >= 1 && gw->state().connected; }))
      << gw->state().last_error;
  ASSERT_TRUE(eventually([&] { return seen.count("during the drop") == 1; }));
  write("after the resume");
  ASSERT_TRUE(eventually([&] { return seen.count("after the resume") == 1; }));
  const auto resumes = gateway_in(6);
  ASSERT_GE(resumes.size(), 1u);
  EXPECT_GE(resumes[0].at("resume_seq").as_int64(), seq);
  EXPECT_EQ(gw->state().identifies, 1u);
  EXPECT_EQ(seen.count("before the drop"), 1);
  EXPECT_EQ(seen.count("during the drop"), 1);
  gw->stop();
}

TEST_F(DiscordGateway, AKeptSessionIsResumedAfterARestart) {
  GatewaySession kept;
  {
    auto gw = make();
    gw->start();
    ASSERT_TRUE(eventually([&] { return gw->state().connected; }));
    kept = gw->state().session;
    gw->stop();  // closes with 4000: the session stays resumable
  }
  write("while away");
  auto gw = make(kept);
  gw->start();
  ASSERT_TRUE(eventually([&] { return seen.count("while away") == 1; })) << gw->state().last_error;
  EXPECT_EQ(gw->state().identifies, 0u);
  EXPECT_EQ(gw->state().resumes, 1u);
  gw->stop();
}

TEST_F(DiscordGateway, AMissedAckMeansAReconnectAndResume) {
  auto gw = make();
  gw->start();
  ASSERT_TRUE(eventually([&] { return gw->state().connected; }));
  fake.admin("POST", "/_fake/config", R"({"ack_heartbeats":false})");  // the connection turns zombie
  ASSERT_TRUE(eventually([&] { return gw->state().missed_acks >= 1; }));
  fake.admin("POST", "/_fake/config", R"({"ack_heartbeats":true})");
  ASSERT_TRUE(eventually([&] { return gw->state().resumes >= 1 && gw->state().connected; }))
      << gw->state().last_error;
  EXPECT_EQ(gw->state().identifies, 1u);  // resumed, not identified again
  write("after the zombie");
  ASSERT_TRUE(eventually([&] { return seen.count("after the zombie") == 1; }));
  gw->stop();
}

TEST_F(DiscordGateway, InvalidSessionMeansAFreshIdentify) {
  auto gw = make();
  gw->start();
  ASSERT_TRUE(eventually([&] { return gw->state().connected; }));
  const std::string first = gw->state().session.session_id;
  fake.admin("POST", "/_fake/gateway/invalidate", R"({"resumable":false})");
  ASSERT_TRUE(eventually([&] { return gw->state().identifies == 2 && gw->state().connected; }))
      << gw->state().last_error;
  EXPECT_EQ(gw->state().invalid_sessions, 1u);
  EXPECT_NE(gw->state().session.session_id, first);
  write("after invalid session");
  ASSERT_TRUE(eventually([&] { return seen.count("after invalid session") == 1; }));
  gw->stop();
}

TEST_F(DiscordGateway, AWrongTokenEndsTheGatewayWithAClearError) {
  RestApi bad(*http, fake.api(), "MTIwMDAwMDAwMDAwMDAwMDAwMQ.wrong.token");
  GatewayOptions o;
  o.token = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.wrong.token";
  Gateway gw(bad, *ws, o, [](std::string_view, const boost::json::object&) { return true; });
  gw.start();
  ASSERT_TRUE(eventually([&] { return gw.state().fatal; }));
  EXPECT_NE(gw.state().last_error.find("401"), std::string::npos) << gw.state().last_error;
  gw.stop();
}

}  // namespace
}  // namespace sigil::channels::discord
