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
  m.content = "thanks";
  m.reply_to_author = kBotId;
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  m.reply_to_author = "301";
  m.mentions = {kBotId};
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
}

}  // namespace
}  // namespace sigil::channels::discord
