// Which Matrix events become turns (channels/matrix/inbound.h): DMs, mentions, the bot's own events, edits,
// notices, encrypted events, allowed_users.
#include "sigil/channels/matrix/inbound.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace sigil::channels::matrix {
namespace {

InboundEvent event(const std::string& json, int members = 3) {
  auto m = read_event("!r:s", boost::json::parse(json).as_object());
  EXPECT_TRUE(m.has_value()) << json;
  if (!m) return {};
  m->room_members = members;
  return *m;
}

AdmitPolicy policy(std::vector<std::string> allowed = {}) {
  return {std::move(allowed), "@sigil:s", "Sigil Bot"};
}

const char* kText = R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","origin_server_ts":5,
  "content":{"msgtype":"m.text","body":"hello there"}})";

TEST(MatrixInboundTest, ReadsMessagesAndSkipsOtherEvents) {
  const InboundEvent m = event(kText);
  EXPECT_EQ(m.event_id, "$1");
  EXPECT_EQ(m.sender, "@alice:s");
  EXPECT_EQ(m.body, "hello there");
  EXPECT_EQ(m.ts, 5);
  EXPECT_FALSE(read_event("!r:s", boost::json::parse(R"({"type":"m.reaction","event_id":"$2","sender":"@a:s",
    "content":{}})")
                                      .as_object()));
  EXPECT_FALSE(
      read_event("!r:s", boost::json::parse(R"({"type":"m.room.message","sender":"@a:s"})").as_object()));
}

TEST(MatrixInboundTest, ADmIsAlwaysAddressedAGroupRoomOnlyByAMention) {
  EXPECT_EQ(admit(event(kText, 2), policy()), Verdict::Admitted);
  EXPECT_EQ(admit(event(kText, 3), policy()), Verdict::NotAddressed);
  EXPECT_EQ(
      admit(
          event(R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{"msgtype":"m.text",
    "body":"hey you","m.mentions":{"user_ids":["@sigil:s"]}}})"),
          policy()),
      Verdict::Admitted);
  EXPECT_EQ(
      admit(
          event(R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{"msgtype":"m.text",
    "body":"@sigil:s what time is it"}})"),
          policy()),
      Verdict::Admitted);
  EXPECT_EQ(
      admit(
          event(R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{"msgtype":"m.text",
    "body":"sigil bot: what time is it"}})"),
          policy()),
      Verdict::Admitted);
}

TEST(MatrixInboundTest, OwnEventsEditsNoticesAndStrangersStartNothing) {
  EXPECT_EQ(
      admit(
          event(R"({"type":"m.room.message","event_id":"$1","sender":"@sigil:s","content":{"msgtype":"m.text",
    "body":"me"}})",
                2),
          policy()),
      Verdict::Own);
  EXPECT_EQ(
      admit(
          event(R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{"msgtype":"m.text",
    "body":"* fixed","m.relates_to":{"rel_type":"m.replace","event_id":"$0"}}})",
                2),
          policy()),
      Verdict::Edit);
  EXPECT_EQ(
      admit(
          event(
              R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{"msgtype":"m.notice",
    "body":"automated"}})",
              2),
          policy()),
      Verdict::Notice);
  EXPECT_EQ(admit(event(kText, 2), policy({"@bob:s"})), Verdict::NotAllowed);
  EXPECT_EQ(admit(event(kText, 2), policy({"@alice:s"})), Verdict::Admitted);
  EXPECT_EQ(
      admit(
          event(R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{"msgtype":"m.text",
    "body":"   "}})",
                2),
          policy()),
      Verdict::NoText);
}

TEST(MatrixInboundTest, AnEncryptedEventIsEncryptedNotDropped) {
  const InboundEvent m = event(R"({"type":"m.room.encrypted","event_id":"$9","sender":"@alice:s",
    "content":{"algorithm":"m.megolm.v1.aes-sha2","ciphertext":"AwgA"}})",
                               2);
  EXPECT_TRUE(m.encrypted());
  EXPECT_EQ(admit(m, policy()), Verdict::Encrypted);
  EXPECT_EQ(admit(m, policy({"@bob:s"})), Verdict::NotAllowed);
}

TEST(MatrixInboundTest, FilesAndReplies) {
  const InboundEvent f = event(R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{
    "msgtype":"m.image","body":"cat.png","url":"mxc://s/abc","info":{"mimetype":"image/png","size":42}}})",
                               2);
  EXPECT_TRUE(f.has_file());
  EXPECT_EQ(f.filename, "cat.png");
  EXPECT_EQ(f.mimetype, "image/png");
  EXPECT_EQ(f.size, 42);
  EXPECT_EQ(admit(f, policy()), Verdict::Admitted);
  const InboundEvent r = event(R"({"type":"m.room.message","event_id":"$1","sender":"@alice:s","content":{
    "msgtype":"m.text","body":"> <@bob:s> earlier\n> words\n\nmy answer",
    "m.relates_to":{"m.in_reply_to":{"event_id":"$0"}}}})",
                               2);
  EXPECT_EQ(readable_text(r), "my answer");
}

TEST(MatrixInboundTest, InvitesFollowAllowedUsers) {
  EXPECT_TRUE(invite_allowed("@alice:s", policy()));
  EXPECT_TRUE(invite_allowed("@alice:s", policy({"@alice:s"})));
  EXPECT_FALSE(invite_allowed("@mallory:s", policy({"@alice:s"})));
}

}  // namespace
}  // namespace sigil::channels::matrix
