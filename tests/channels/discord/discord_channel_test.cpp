// The Discord channel adapter against the real fake over loopback (channels/discord/discord_channel.h):
// what each outbox call becomes, splitting at 2,000 code points, nonces, 429s, a time-out after the send.
#include "sigil/channels/discord/discord_channel.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <thread>

#include "channels/discord/discord_fake.h"
#include "deliver/fake_channel.h"
#include "sigil/channels/discord/voice_waveform.h"
#include "sigil/deliver/chat_outbox.h"
#include "sigil/deliver/split.h"
#include "sigil/log/log.h"

namespace sigil::channels::discord {
namespace {

class DiscordChannelTest : public testing::DiscordFakeTest {
 protected:
  void SetUp() override {
    DiscordFakeTest::SetUp();
    if (HasFatalFailure()) return;
    RestOptions o;
    o.request_timeout = std::chrono::seconds(2);
    o.retry_pause = std::chrono::milliseconds(50);
    rest = std::make_unique<RestApi>(*http, fake.api(), testing::kToken, o);
  }
  // The bot's messages in the channel as a user sees them, oldest first.
  std::vector<boost::json::object> messages(const std::string& channel = testing::kDm) {
    std::vector<boost::json::object> out;
    const auto v = fake.admin("GET", "/_fake/channels/" + channel);
    for (const auto& m : v.at("channel").at("messages").as_array())
      if (m.at("author").at("id").as_string() == testing::kBot) out.push_back(m.as_object());
    return out;
  }
  std::vector<boost::json::object> rest_calls(std::string_view route_prefix) {
    std::vector<boost::json::object> out;
    for (const auto& e : fake.journal("rest"))
      if (std::string_view(e.at("route").as_string()).starts_with(route_prefix)) out.push_back(e.as_object());
    return out;
  }
  std::string user_message(const std::string& content) { return fake.user_message(content); }

  std::unique_ptr<RestApi> rest;
};

TEST_F(DiscordChannelTest, TextIsRenderedWithANonceAndNoPings) {
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-1"});
  const auto r = ch.send_text("Hi **there** @everyone, a_b");
  ASSERT_TRUE(r.ok()) << r.error();
  const auto calls = rest_calls("POST /channels/");
  ASSERT_EQ(calls.size(), 1u);
  const auto& body = calls[0].at("body").as_object();
  EXPECT_EQ(body.at("content").as_string(), "Hi **there** @everyone, a\\_b");
  EXPECT_EQ(body.at("nonce").as_string(), discord_nonce("turn-1", 0));
  EXPECT_TRUE(body.at("enforce_nonce").as_bool());
  EXPECT_TRUE(body.at("allowed_mentions").at("parse").as_array().empty());
  EXPECT_EQ(messages().back().at("id").as_string(), *r);
}

TEST_F(DiscordChannelTest, LongTextIsSplitAt2000CodePoints) {
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-2"});
  // 1,500 code points of emoji and underscores that escaping doubles: the rendered text is over the limit.
  std::string text;
  for (int i = 0; i < 300; ++i) text += "👍 a_b ";
  ASSERT_LE(deliver::text_units(text, deliver::TextUnit::CodePoints), 2000u);
  ASSERT_TRUE(ch.send_text(text).ok());
  const auto shown = messages();
  ASSERT_EQ(shown.size(), 2u);
  for (const auto& m : shown)
    EXPECT_LE(deliver::text_units(m.at("content").as_string(), deliver::TextUnit::CodePoints), 2000u);
  for (const auto& c : rest_calls("POST /channels/")) EXPECT_EQ(c.at("status").as_int64(), 200);
}

TEST_F(DiscordChannelTest, EditsDeletesAndReactions) {
  const std::string theirs = user_message("hello");
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, theirs, false, "turn-3"});
  const auto sent = ch.send_text("first");
  ASSERT_TRUE(sent.ok());
  ASSERT_TRUE(ch.edit_text(*sent, "second *take*").ok());
  EXPECT_EQ(messages().back().at("content").as_string(), "second *take*");
  ASSERT_TRUE(ch.react("", "👍").ok());
  ASSERT_TRUE(ch.react(*sent, "sigil:1200000000000000500").ok());
  EXPECT_FALSE(ch.react(*sent, "not-an-emoji").ok());
  const auto puts = rest_calls("PUT /channels/");
  ASSERT_EQ(puts.size(), 3u);
  EXPECT_NE(std::string(puts[0].at("route").as_string()).find("%F0%9F%91%8D"), std::string::npos);
  ASSERT_TRUE(ch.delete_message(*sent).ok());
  EXPECT_TRUE(messages().empty());
}

TEST_F(DiscordChannelTest, FilesAndVoiceMessages) {
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-4"});
  deliver::OutgoingFile file;
  file.payload =
      std::make_shared<deliver::testing::MemoryPayload>("report.pdf", "%PDF-1.4 x", "application/pdf");
  file.name = "report.pdf";
  file.kind = "document";
  file.caption = "the **report**";
  ASSERT_TRUE(ch.send_file(file).ok());
  deliver::OutgoingFile voice;
  voice.payload = std::make_shared<deliver::testing::MemoryPayload>("voice.ogg", "OggS-not-really",
                                                                    "audio/ogg; codecs=opus");
  voice.name = "voice.ogg";
  voice.duration_ms = 2500;
  ASSERT_TRUE(ch.send_voice(voice).ok());
  const auto shown = messages();
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_EQ(shown[0].at("content").as_string(), "the **report**");
  EXPECT_EQ(shown[0].at("attachments").at(0).at("filename").as_string(), "report.pdf");
  EXPECT_EQ(shown[1].at("flags").as_int64() & 8192, 8192);
  EXPECT_EQ(shown[1].at("attachments").at(0).at("duration_secs").as_double(), 2.5);
  EXPECT_FALSE(shown[1].at("attachments").at(0).at("waveform").as_string().empty());
  EXPECT_EQ(base64_encode("ab"), "YWI=");
}

TEST_F(DiscordChannelTest, ARefusedVoiceMessageFallsBackToAnAudioFile) {
  // Discord refuses the voice message (50161): the outbox sends the same bytes as an audio attachment.
  fake.admin("POST", "/_fake/faults",
             R"({"match":"POST /channels/*/messages","kind":"status","status":400,
                 "body":{"message":"Voice messages must have supporting metadata.","code":50161}})");
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-8"});
  deliver::ChatOutbox box(ch);
  box.deliver(deliver::testing::voice_delivery("hello.ogg", 2000));
  box.end();
  const auto calls = rest_calls("POST /channels/");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].at("status").as_int64(), 400);
  EXPECT_EQ(calls[0].at("body").at("flags").as_int64(), 8192);
  EXPECT_EQ(calls[1].at("status").as_int64(), 200);
  EXPECT_FALSE(calls[1].at("body").as_object().contains("flags"));
  EXPECT_EQ(calls[1].at("files").at(0).at("sha256"), calls[0].at("files").at(0).at("sha256"));
  const auto shown = messages();
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].at("attachments").at(0).at("filename").as_string(), "hello.ogg");
  ASSERT_FALSE(box.report().lines().empty());  // the fallback is noted in the turn report
}

TEST_F(DiscordChannelTest, ARefusedCallIsLoggedAsAWarningAndReturnedAsItsError) {
  fake.admin("POST", "/_fake/faults",
             R"({"match":"POST /channels/*/messages","kind":"status","status":400,
                 "body":{"message":"Cannot send an empty message","code":50006}})");
  std::vector<log::Record> records;
  log::install([&records](const log::Record& r) { records.push_back(r); }, log::Level::warn);
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-9"});
  const deliver::ChannelResult r = ch.send_text("hi");
  log::install(nullptr, log::Level::off);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(ch.in_doubt().empty());  // refused: its outcome is known
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].level, log::Level::warn);
  EXPECT_EQ(records[0].event, "discord-send-failed");
  using Fields = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(records[0].fields,
            (Fields{{"channel", testing::kDm}, {"call", "create message"}, {"error", r.error()}}));
  EXPECT_FALSE(ch.shown_anything());
}

TEST_F(DiscordChannelTest, A429IsWaitedOutAndSentOnce) {
  fake.admin("POST", "/_fake/faults",
             R"({"match":"POST /channels/*/messages","kind":"rate_limit","retry_after":0.3,"times":1})");
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-5"});
  ASSERT_TRUE(ch.send_text("after the limit").ok());
  const auto calls = rest_calls("POST /channels/");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].at("status").as_int64(), 429);
  EXPECT_EQ(calls[1].at("status").as_int64(), 200);
  EXPECT_GE(calls[1].at("t_ms").as_int64() - calls[0].at("t_ms").as_int64(), 250);
  EXPECT_EQ(messages().size(), 1u);
  EXPECT_GE(rest->stats().retries, 1u);
}

TEST_F(DiscordChannelTest, ATimeOutAfterTheSendIsDedupedByTheNonce) {
  fake.admin("POST", "/_fake/faults", R"({"match":"POST /channels/*/messages","kind":"timeout","times":1})");
  DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-6"});
  const auto r = ch.send_text("exactly once");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(rest_calls("POST /channels/").size(), 2u);  // sent again after the time-out...
  EXPECT_EQ(messages().size(), 1u);                     // ...and Discord kept one message
  EXPECT_EQ(messages().back().at("id").as_string(), *r);
  EXPECT_TRUE(ch.in_doubt().empty());
}

TEST_F(DiscordChannelTest, TheSameTurnMakesTheSameNonces) {
  {
    DiscordChannel ch(*rest, DiscordTarget{testing::kDm, "", false, "turn-7"});
    ASSERT_TRUE(ch.send_text("first run").ok());
  }
  DiscordChannel again(*rest, DiscordTarget{testing::kDm, "", false, "turn-7"});  // the turn resumed
  ASSERT_TRUE(again.send_text("second run").ok());
  ASSERT_EQ(messages().size(), 1u);
  EXPECT_EQ(messages().back().at("content").as_string(), "first run");
  EXPECT_NE(discord_nonce("turn-7", 0), discord_nonce("turn-7", 1));
  EXPECT_LE(discord_nonce("x", 0).size(), 25u);
}

// RestApi keeps the bot's global pace (50 requests a second by default) before it calls: made slow here, a
// second request waits, and a stop ends the wait without it being made.
TEST_F(DiscordChannelTest, TheGlobalPaceHoldsARequestBackUntilItIsItsTurn) {
  RestOptions o;
  o.requests_per_second = 0.1;  // one at once, then one every ten seconds
  o.request_burst = 1;
  RestApi slow(*http, fake.api(), testing::kToken, o);
  DiscordChannel ch(slow, DiscordTarget{testing::kDm, "", false, "turn-9"});
  ASSERT_TRUE(ch.send_text("the first").ok());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    slow.stop();
  });
  const auto held = ch.send_text("the second");
  stopper.join();
  EXPECT_FALSE(held.ok());
  EXPECT_EQ(rest_calls("POST /channels/").size(), 1u) << "the second request was never made";
  EXPECT_EQ(messages().size(), 1u);
  EXPECT_EQ(rest->stats().paced, 0u);
}

}  // namespace
}  // namespace sigil::channels::discord
