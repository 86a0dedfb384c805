// The Signal receive side against the real signal-cli fake (channels/signal/event_stream.h, inbound.h): every
// message handed on once and in order, across a dropped stream and a stream that went silent while sends
// still worked (the peers' top Signal bug), with signal-cli in on-connection receive mode (the set-up
// docs/channels/signal.md asks for): 0 lost, 0 duplicates.
#include "sigil/channels/signal/event_stream.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <mutex>
#include <set>
#include <thread>

#include "channels/signal/signal_fake.h"
#include "sigil/channels/signal/inbound.h"

namespace sigil::channels::signal {
namespace {

using testing::kAccount;
using testing::kAlice;
using testing::kGroup;

class QuickFake : public testing::SignalFake {
 public:
  QuickFake() : SignalFake({"--receive-mode", "on-connection", "--keepalive-ms", "100"}) {}
};

class EventStreamTest : public channels::testing::NodeFakeTest<QuickFake> {
 protected:
  void SetUp() override {
    NodeFakeTest::SetUp();
    if (HasFatalFailure()) return;
    EventStreamOptions o;
    o.silence_limit = std::chrono::milliseconds(800);
    o.reconnect_pause = std::chrono::milliseconds(50);
    stream = std::make_unique<EventStream>(
        *http, fake.url(),
        [this](const boost::json::object& e) {
          std::lock_guard lock(mu);
          if (auto m = parse_message(e, kAccount)) got.push_back(*m);
        },
        o);
  }
  void TearDown() override {
    if (stream) stream->stop();
  }
  std::vector<SignalMessage> received() {
    std::lock_guard lock(mu);
    return got;
  }
  bool wait_for(std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (received().size() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  bool wait_connected(std::uint64_t connects) {
    for (int i = 0; i < 500; ++i) {
      const auto s = stream->stats();
      if (s.connected && s.connects >= connects) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  std::vector<std::string> texts() {
    std::vector<std::string> out;
    for (const auto& m : received()) out.push_back(m.text);
    return out;
  }
  // No message twice: (sender, timestamp) keys are unique.
  void expect_no_duplicates() {
    std::set<std::string> keys;
    for (const auto& m : received()) EXPECT_TRUE(keys.insert(m.key()).second) << "twice: " << m.key();
  }

  std::unique_ptr<EventStream> stream;
  std::mutex mu;
  std::vector<SignalMessage> got;
};

TEST_F(EventStreamTest, MessagesArriveOnceInOrder) {
  fake.user_message("before the stream");  // waits on the server (on-connection mode)
  stream->start();
  ASSERT_TRUE(wait_connected(1));
  fake.user_message("one");
  fake.user_message(
      boost::json::object{{"from", "bob"}, {"group", kGroup}, {"text", "two"}, {"mention_bot", true}});
  fake.admin("POST", "/_fake/envelopes", R"({"type":"receipt","from":"alice","timestamps":[1]})");
  fake.admin("POST", "/_fake/reactions", R"({"from":"alice","emoji":"👍","target_timestamp":1})");
  fake.user_message("three");
  ASSERT_TRUE(wait_for(4)) << received().size();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(texts(), (std::vector<std::string>{"before the stream", "one", "two", "three"}));
  const auto got = received();
  EXPECT_EQ(got[2].group_id, kGroup);
  EXPECT_TRUE(got[2].mentions_bot);
  EXPECT_TRUE(answered(got[2], {}, {kGroup}));
  EXPECT_FALSE(answered(got[2], {kAlice}, {}));
  EXPECT_TRUE(answered(got[1], {kAlice}, {}));
  EXPECT_FALSE(answered(got[1], {testing::kBob}, {}));
  expect_no_duplicates();
  EXPECT_EQ(stream->stats().events, 6u);  // the receipt and the reaction were handed on and not taken
}

TEST_F(EventStreamTest, ADroppedStreamIsOpenedAgainWithNothingLostOrTwice) {
  stream->start();
  ASSERT_TRUE(wait_connected(1));
  fake.user_message("a");
  ASSERT_TRUE(wait_for(1));
  fake.admin("POST", "/_fake/events/drop");
  fake.user_message("b");  // while no stream is open: it waits on the server
  fake.user_message("c");
  ASSERT_TRUE(wait_for(3)) << received().size();
  ASSERT_TRUE(wait_connected(2));
  fake.user_message("d");
  ASSERT_TRUE(wait_for(4));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(texts(), (std::vector<std::string>{"a", "b", "c", "d"}));
  expect_no_duplicates();
  EXPECT_GE(stream->stats().drops, 1u);
  EXPECT_EQ(fake.admin("GET", "/_fake/events").at("lost").as_array().size(), 0u);
}

TEST_F(EventStreamTest, ASilentStreamIsNoticedAndOpenedAgain) {
  stream->start();
  ASSERT_TRUE(wait_connected(1));
  fake.user_message("first");
  ASSERT_TRUE(wait_for(1));
  fake.admin("POST", "/_fake/events/silence", R"({"lose":false})");
  fake.user_message("during the silence");
  // Sends still work meanwhile: the bug the check is for.
  ASSERT_TRUE(wait_for(2, std::chrono::seconds(10))) << "the silent stream was never replaced";
  EXPECT_EQ(texts(), (std::vector<std::string>{"first", "during the silence"}));
  expect_no_duplicates();
  const auto s = stream->stats();
  EXPECT_GE(s.silent_restarts, 1u);
  EXPECT_NE(s.last_error.find("no event or keep-alive"), std::string::npos) << s.last_error;
}

TEST_F(EventStreamTest, ADaemonThatIsDownIsReportedAndWaitedFor) {
  EventStreamOptions o;
  o.reconnect_pause = std::chrono::milliseconds(20);
  EventStream dead(
      *http, "http://127.0.0.1:1", [](const boost::json::object&) {}, o);
  dead.start();
  for (int i = 0; i < 200 && dead.stats().daemon_down < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  dead.stop();
  const auto s = dead.stats();
  EXPECT_GE(s.daemon_down, 2u);
  EXPECT_EQ(s.connects, 0u);
  EXPECT_NE(s.last_error.find("does not answer"), std::string::npos);
}

TEST(SignalInbound, MentionsAreShownOrRemovedAndOwnMessagesAreNotAnswered) {
  const auto event = [](const char* json) { return boost::json::parse(json).as_object(); };
  const auto m = parse_message(
      event(
          R"({"account":"+15550100001","envelope":{"sourceNumber":"+15550100003","sourceUuid":"b","timestamp":5,
        "dataMessage":{"timestamp":5,"message":"\uFFFC hi \uFFFC!","groupInfo":{"groupId":"G","type":"DELIVER"},
        "mentions":[{"number":"+15550100001","uuid":"x","start":0,"length":1},
                    {"number":"+15550100002","uuid":"a","start":5,"length":1}]}}})"),
      "+15550100001");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "hi @+15550100002!");
  EXPECT_TRUE(m->mentions_bot);
  EXPECT_EQ(m->key(), "+15550100003/5");
  // The account's own message from another device, a sync message, an edit: not answered.
  EXPECT_FALSE(parse_message(
      event(R"({"envelope":{"sourceNumber":"+15550100001","timestamp":6,"dataMessage":{"message":"me"}}})"),
      "+15550100001"));
  EXPECT_FALSE(
      parse_message(event(R"({"envelope":{"sourceNumber":"+15550100001","timestamp":7,"syncMessage":{}}})"),
                    "+15550100001"));
  EXPECT_FALSE(
      parse_message(event(R"({"envelope":{"sourceNumber":"+15550100002","timestamp":8,"editMessage":{}}})"),
                    "+15550100001"));
  // A sender known only by ACI is answered by ACI.
  const auto by_uuid = parse_message(
      event(
          R"({"envelope":{"sourceUuid":"a11ce000-0000-4000-8000-000000000002","timestamp":9,"dataMessage":{"message":"x"}}})"),
      "+15550100001");
  ASSERT_TRUE(by_uuid);
  EXPECT_EQ(by_uuid->sender(), "a11ce000-0000-4000-8000-000000000002");
  EXPECT_TRUE(answered(*by_uuid, {"a11ce000-0000-4000-8000-000000000002"}, {}));
}

}  // namespace
}  // namespace sigil::channels::signal
