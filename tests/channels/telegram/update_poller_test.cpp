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

TEST(TelegramUpdates, AForumTopicMessageNamesItsTopicAndNothingElseDoes) {
  // A topic message carries is_topic_message; a reply in the General topic carries a message_thread_id
  // too (the replied message's), without it, and belongs to the chat itself.
  const InboundMessage topic =
      read(R"({"update_id":1,"message":{"message_id":7,"date":1,"message_thread_id":5,
    "is_topic_message":true,"chat":{"id":-100555,"type":"supergroup","is_forum":true},
    "from":{"id":1001,"is_bot":false,"first_name":"Alice"},"text":"in the topic"}})");
  EXPECT_EQ(topic.thread_id, 5);
  const InboundMessage general_reply = read(R"({"update_id":2,"message":{"message_id":8,"date":1,
    "message_thread_id":3,"chat":{"id":-100555,"type":"supergroup","is_forum":true},
    "from":{"id":1001,"is_bot":false,"first_name":"Alice"},"text":"a reply in General",
    "reply_to_message":{"message_id":3,"date":1,"chat":{"id":-100555,"type":"supergroup"}}}})");
  EXPECT_EQ(general_reply.thread_id, 0);
  EXPECT_EQ(read(kPrivate).thread_id, 0);
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

// A file the user sends: the largest photo size, or the document/voice/audio/video with its name and type;
// a file message is admitted without text (its caption, if any, is the text).
TEST(TelegramUpdates, FilesUsersSend) {
  InboundMessage m = read(R"({"update_id":2,"message":{"message_id":6,"chat":{"id":1001,"type":"private"},
    "from":{"id":1001,"first_name":"Alice"},"caption":"look",
    "photo":[{"file_id":"small","file_unique_id":"a","width":90,"height":60,"file_size":900},
             {"file_id":"large","file_unique_id":"b","width":800,"height":600,"file_size":50000}]}})");
  ASSERT_TRUE(m.file.has_value());
  EXPECT_EQ(m.file->kind, "photo");
  EXPECT_EQ(m.file->file_id, "large");
  EXPECT_EQ(m.file->size, 50000);
  EXPECT_EQ(m.text, "look");
  m = read(R"({"update_id":3,"message":{"message_id":7,"chat":{"id":1001,"type":"private"},
    "from":{"id":1001,"first_name":"Alice"},
    "document":{"file_id":"doc","file_unique_id":"c","file_name":"a.csv","mime_type":"text/csv","file_size":12}}})");
  ASSERT_TRUE(m.file.has_value());
  EXPECT_EQ(m.file->kind, "document");
  EXPECT_EQ(m.file->name, "a.csv");
  EXPECT_EQ(m.file->mime_type, "text/csv");
  EXPECT_TRUE(m.text.empty());
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  m = read(R"({"update_id":4,"message":{"message_id":8,"chat":{"id":1001,"type":"private"},
    "from":{"id":1001,"first_name":"Alice"},"voice":{"file_id":"v","file_unique_id":"d","duration":2,
    "mime_type":"audio/ogg"}}})");
  ASSERT_TRUE(m.file.has_value());
  EXPECT_EQ(m.file->kind, "voice");
  EXPECT_EQ(admit(m, policy()), Verdict::Admitted);
  m = read(R"({"update_id":5,"message":{"message_id":9,"chat":{"id":1001,"type":"private"},
    "from":{"id":1001,"first_name":"Alice"},"sticker":{"file_id":"s"}}})");
  EXPECT_FALSE(m.file.has_value());
  EXPECT_EQ(admit(m, policy()), Verdict::NoText);
}

}  // namespace
}  // namespace sigil::channels::telegram
