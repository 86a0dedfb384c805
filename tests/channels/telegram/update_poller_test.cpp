// Which Telegram updates become turns (channels/telegram/update_poller.h: read_update, admit).
#include "sigil/channels/telegram/update_poller.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace sigil::channels::telegram {
namespace {

InboundMessage read(std::string_view json) {
  auto m = read_update(boost::json::parse(json).as_object());
  EXPECT_TRUE(m.has_value());
  return m.value_or(InboundMessage{});
}

AdmitPolicy policy(std::vector<std::int64_t> allowed = {}) {
  AdmitPolicy p;
  p.allowed_users = std::move(allowed);
  p.bot_id = 123456789;
  p.bot_username = "sigil_test_bot";
  return p;
}

constexpr std::string_view kPrivate = R"({"update_id":10000,"message":{"message_id":5,"date":1,
  "chat":{"id":1001,"type":"private"},"from":{"id":1001,"is_bot":false,"first_name":"Alice"},"text":"hi"}})";

TEST(TelegramUpdates, ReadsAMessage) {
  const InboundMessage m = read(kPrivate);
  EXPECT_EQ(m.update_id, 10000);
  EXPECT_EQ(m.chat_id, 1001);
  EXPECT_EQ(m.chat_type, "private");
  EXPECT_EQ(m.from_id, 1001);
  EXPECT_EQ(m.from_name, "Alice");
  EXPECT_EQ(m.message_id, 5);
  EXPECT_EQ(m.text, "hi");
  EXPECT_FALSE(read_update(boost::json::parse(R"({"update_id":1,"edited_message":{}})").as_object()));
}

TEST(TelegramUpdates, AllowedUsers) {
  const InboundMessage m = read(kPrivate);
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);  // [] = anyone
  EXPECT_EQ(admit(m, policy({1001})), Verdict::Admitted);
  EXPECT_EQ(admit(m, policy({42})), Verdict::NotAllowed);
  EXPECT_EQ(admit(m, policy(), true), Verdict::FromBot);
}

TEST(TelegramUpdates, NoTextNoTurn) {
  InboundMessage m = read(kPrivate);
  m.text.clear();
  EXPECT_EQ(admit(m, policy()), Verdict::NoText);
}

TEST(TelegramUpdates, GroupsOnlyWhenAddressed) {
  InboundMessage m = read(R"({"update_id":1,"message":{"message_id":9,"chat":{"id":-100,"type":"group"},
    "from":{"id":1001,"first_name":"A"},"text":"hello all"}})");
  EXPECT_EQ(admit(m, policy()), Verdict::NotAddressed);
  m.text = "hey @Sigil_Test_Bot what's up";
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  m.text = "hey @sigil_test_bot2";
  EXPECT_EQ(admit(m, policy()), Verdict::NotAddressed);
  m = read(R"({"update_id":1,"message":{"message_id":9,"chat":{"id":-100,"type":"supergroup"},
    "from":{"id":1001,"first_name":"A"},"text":"yes","reply_to_message":{"message_id":3,"from":{"id":123456789}}}})");
  EXPECT_EQ(m.reply_to_from, 123456789);
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  // The allow-list applies in groups too.
  EXPECT_EQ(admit(m, policy({7})), Verdict::NotAllowed);
}

}  // namespace
}  // namespace sigil::channels::telegram
