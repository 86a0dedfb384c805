// Which Discord messages become turns (channels/discord/inbound.h: read_message_create, admit).
#include "sigil/channels/discord/inbound.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace sigil::channels::discord {
namespace {

constexpr const char* kBotId = "1200000000000000001";

InboundMessage read(std::string_view json) {
  auto m = read_message_create(boost::json::parse(json).as_object());
  EXPECT_TRUE(m.has_value());
  return m.value_or(InboundMessage{});
}

AdmitPolicy policy(std::vector<std::string> allowed = {}) { return AdmitPolicy{std::move(allowed), kBotId}; }

constexpr std::string_view kDm = R"({"id":"9","channel_id":"400","content":"hi there",
  "author":{"id":"300","username":"alice","global_name":"Alice"},"mentions":[]})";

TEST(DiscordInbound, ReadsAMessage) {
  const InboundMessage m = read(kDm);
  EXPECT_EQ(m.id, "9");
  EXPECT_EQ(m.channel_id, "400");
  EXPECT_EQ(m.guild_id, "");
  EXPECT_EQ(m.author_id, "300");
  EXPECT_EQ(m.author_name, "Alice");
  EXPECT_EQ(m.content, "hi there");
  EXPECT_TRUE(m.attachments.empty());
  EXPECT_FALSE(m.voice);
  const InboundMessage v = read(R"({"id":"9","channel_id":"400","content":"","flags":8192,
    "author":{"id":"300","username":"alice"},"attachments":[{"id":"5","filename":"voice-message.ogg",
    "content_type":"audio/ogg","size":1234,"url":"https://cdn.discordapp.com/attachments/400/5/voice-message.ogg"},
    {"id":"6","filename":"no-url.txt"}]})");
  EXPECT_TRUE(v.voice);
  ASSERT_EQ(v.attachments.size(), 1u);  // one without a URL cannot be fetched: left out
  EXPECT_EQ(v.attachments[0].id, "5");
  EXPECT_EQ(v.attachments[0].filename, "voice-message.ogg");
  EXPECT_EQ(v.attachments[0].content_type, "audio/ogg");
  EXPECT_EQ(v.attachments[0].size, 1234);
  EXPECT_EQ(v.attachments[0].url, "https://cdn.discordapp.com/attachments/400/5/voice-message.ogg");
  EXPECT_FALSE(read_message_create(boost::json::parse(R"({"id":"1","channel_id":"2"})").as_object()));
}

TEST(DiscordInbound, OwnAndOtherBotsMessagesAreNeverAnswered) {
  InboundMessage m = read(kDm);
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  m.author_id = kBotId;
  EXPECT_EQ(admit(m, policy()), Verdict::Own);
  m.author_id = "777";
  m.author_bot = true;
  EXPECT_EQ(admit(m, policy()), Verdict::FromBot);
}

TEST(DiscordInbound, AllowedUsersAndEmptyText) {
  InboundMessage m = read(kDm);
  EXPECT_EQ(admit(m, policy({"300"})), Verdict::Admitted);
  EXPECT_EQ(admit(m, policy({"301"})), Verdict::NotAllowed);
  m.content = "  ";
  EXPECT_EQ(admit(m, policy()), Verdict::NoText);
  m.attachments.push_back({"5", "cat.png", "image/png", 10, "https://cdn.discordapp.com/a/cat.png"});
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);  // a file alone is a message
}

TEST(DiscordInbound, GuildMessagesOnlyWhenMentionedOrRepliedTo) {
  InboundMessage m = read(R"({"id":"9","channel_id":"200","guild_id":"100","content":"hello all",
    "author":{"id":"300","username":"alice"},"mentions":[]})");
  EXPECT_EQ(admit(m, policy()), Verdict::NotAddressed);
  m.content = "<@1200000000000000001> what's up";
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  EXPECT_EQ(without_bot_mention(m.content, kBotId), "what's up");
  m.content = "<@!1200000000000000001>";
  EXPECT_EQ(admit(m, policy()), Verdict::NoText);  // a mention alone asks nothing
  m.attachments.push_back({"5", "cat.png", "image/png", 10, "https://cdn.discordapp.com/a/cat.png"});
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);  // unless it brings a file
  m.attachments.clear();
  m.content = "thanks";
  m.reply_to_author = kBotId;
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  m.reply_to_author = "301";
  m.mentions = {kBotId};
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
}

}  // namespace
}  // namespace sigil::channels::discord
