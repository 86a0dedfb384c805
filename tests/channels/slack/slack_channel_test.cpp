// The Slack channel adapter against the real fake over loopback (channels/slack/slack_channel.h): what each
// outbox call becomes (mrkdwn in the thread, splitting at 4,000 code points, reactions by name, uploads,
// voice notes as audio files), and a time-out after the send: in doubt, shown once, never twice.
#include "sigil/channels/slack/slack_channel.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "channels/slack/slack_fake.h"
#include "deliver/fake_channel.h"

namespace sigil::channels::slack {
namespace {

using testing::kDm;
using testing::kGeneral;

class SlackChannelTest : public testing::SlackFakeTest {
 protected:
  void SetUp() override {
    SlackFakeTest::SetUp();
    if (HasFatalFailure()) return;
    // The fake's chat.postMessage pace out of the way: these tests post many messages at once.
    fake.admin("POST", "/_fake/config", R"({"post_rate":{"per_second":100,"burst":100}})");
    ApiOptions o;
    o.request_timeout = std::chrono::seconds(2);
    o.retry_pause = std::chrono::milliseconds(20);
    o.posts_per_second = 100;
    o.post_burst = 100;
    api = std::make_unique<WebApi>(*http, fake.api(), testing::kBotToken, o);
  }
  // The bot's messages in the conversation as a user sees them, oldest first.
  std::vector<boost::json::object> bot_messages(const std::string& channel = kDm) {
    std::vector<boost::json::object> out;
    for (const auto& m : fake.messages(channel))
      if (m.as_object().contains("bot_id")) out.push_back(m.as_object());
    return out;
  }

  std::unique_ptr<WebApi> api;
};

TEST_F(SlackChannelTest, TextIsMrkdwnInTheThreadOfTheMention) {
  const std::string ts = fake.user_message("<@U0SIGILBOT1> hi", kGeneral);
  SlackChannel ch(*api, SlackTarget{kGeneral, ts, ts});
  const auto r = ch.send_text("Here is **bold** & a [link](https://example.com)");
  ASSERT_TRUE(r.ok()) << r.error();
  const auto shown = bot_messages(kGeneral);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].at("text").as_string(), "Here is *bold* &amp; a <https://example.com|link>");
  EXPECT_EQ(shown[0].at("thread_ts").as_string(), ts);
  EXPECT_EQ(r.value(), std::string(shown[0].at("ts").as_string()));
  EXPECT_TRUE(ch.shown_anything());
}

TEST_F(SlackChannelTest, LongTextIsSplitAt4000CodePoints) {
  SlackChannel ch(*api, SlackTarget{kDm, "", ""});
  std::string text;
  for (int i = 0; i < 900; ++i) text += "word" + std::to_string(i) + " ";
  ASSERT_TRUE(ch.send_text(text).ok());
  const auto shown = bot_messages();
  ASSERT_GE(shown.size(), 2u);
  for (const auto& m : shown) EXPECT_LE(m.at("text").as_string().size(), 4000u);
  EXPECT_FALSE(shown[0].contains("thread_ts"));  // a DM is answered at the top level
}

TEST_F(SlackChannelTest, ReactionsBySlackName) {
  const std::string ts = fake.user_message("react to me");
  SlackChannel ch(*api, SlackTarget{kDm, "", ts});
  ASSERT_TRUE(ch.react("", "\xF0\x9F\x91\x8D").ok());     // 👍 -> +1
  ASSERT_TRUE(ch.react(ts, "\xF0\x9F\x8E\x89").ok());     // 🎉 -> tada
  const auto no_name = ch.react("", "\xF0\x9F\xA6\x96");  // 🦖: Slack has no name for it here
  ASSERT_FALSE(no_name.ok());
  EXPECT_NE(no_name.error().find("Slack has no name for the emoji"), std::string::npos);
  const auto messages = fake.messages(kDm);
  const auto& reactions = messages.at(0).at("reactions").as_array();
  ASSERT_EQ(reactions.size(), 2u);
  EXPECT_EQ(reactions[0].at("name").as_string(), "+1");
  EXPECT_EQ(reactions[1].at("name").as_string(), "tada");
  EXPECT_FALSE(ch.capabilities().accepts_reaction("\xF0\x9F\xA6\x96"));
  EXPECT_TRUE(ch.capabilities().accepts_reaction("\xE2\x9D\xA4\xEF\xB8\x8F"));  // ❤️
}

TEST_F(SlackChannelTest, FilesAndVoiceNotesAreUploads) {
  const std::string ts = fake.user_message("<@U0SIGILBOT1> files", kGeneral);
  SlackChannel ch(*api, SlackTarget{kGeneral, ts, ts});
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
  const auto shown = bot_messages(kGeneral);
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_EQ(shown[0].at("text").as_string(), "the *report*");
  EXPECT_EQ(shown[0].at("thread_ts").as_string(), ts);
  EXPECT_EQ(shown[0].at("files").at(0).at("name").as_string(), "report.pdf");
  EXPECT_EQ(shown[1].at("files").at(0).at("name").as_string(), "voice.ogg");
  EXPECT_EQ(shown[1].at("files").at(0).at("mimetype").as_string(), "audio/ogg");
}

TEST_F(SlackChannelTest, EditsReplaceTheTextAndDeletesRemoveIt) {
  SlackChannel ch(*api, SlackTarget{kDm, "", ""});
  const auto r = ch.send_text("draft");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(ch.edit_text(r.value(), "**final**").ok());
  auto shown = bot_messages();
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].at("text").as_string(), "*final*");
  EXPECT_EQ(shown[0].at("edits").as_int64(), 1);
  ASSERT_TRUE(ch.delete_message(r.value()).ok());
  EXPECT_TRUE(bot_messages().empty());
  EXPECT_TRUE(ch.delete_message(r.value()).ok());  // gone already: what was asked
  // A user's message is not the bot's to delete.
  const std::string theirs = fake.user_message("mine");
  const auto refused = ch.delete_message(theirs);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("cant_delete_message"), std::string::npos) << refused.error();
}

TEST_F(SlackChannelTest, ATimeOutAfterTheSendIsInDoubtAndShownOnce) {
  fake.admin("POST", "/_fake/faults", R"({"match":"chat.postMessage","kind":"timeout"})");
  ApiOptions o;
  o.request_timeout = std::chrono::milliseconds(300);
  o.retry_pause = std::chrono::milliseconds(20);
  WebApi slow(*http, fake.api(), testing::kBotToken, o);
  SlackChannel ch(slow, SlackTarget{kDm, "", ""});
  const auto r = ch.send_text("said once");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("outcome unknown"), std::string::npos) << r.error();
  EXPECT_EQ(ch.in_doubt().size(), 1u);
  EXPECT_EQ(bot_messages().size(), 1u);  // it went through, once; never sent again
}

}  // namespace
}  // namespace sigil::channels::slack
