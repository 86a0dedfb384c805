// The Signal channel adapter against the real signal-cli fake over loopback
// (channels/signal/signal_channel.h): style ranges as a user's app applies them (UTF-16, emoji and non-BMP
// text), the 2,000-byte split (never a long-text attachment), reactions, files and voice notes, edits and
// deletes, and a time-out after the send: in doubt, shown once, never twice.
#include "sigil/channels/signal/signal_channel.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "channels/signal/signal_fake.h"
#include "sigil/deliver/delivery.h"

namespace sigil::channels::signal {
namespace {

using testing::kAccount;
using testing::kAlice;
using testing::kGroup;

class SignalChannelTest : public testing::SignalFakeTest {
 protected:
  void SetUp() override {
    SignalFakeTest::SetUp();
    if (HasFatalFailure()) return;
    RpcOptions o;
    o.request_timeout = std::chrono::seconds(2);
    o.retry_pause = std::chrono::milliseconds(20);
    api = std::make_unique<RpcApi>(*http, fake.url(), o);
  }
  SignalTarget dm(std::int64_t answering = 0) { return {kAlice, "", answering, kAlice, kAccount}; }

  std::unique_ptr<RpcApi> api;
};

// What the user's app shows for each range: the text under it.
std::vector<std::string> styled(const boost::json::object& m) {
  std::vector<std::string> out;
  for (const auto& s : m.at("styled").as_array())
    out.push_back(std::string(s.at("style").as_string()) + ":" + std::string(s.at("text").as_string()) +
                  (s.as_object().contains("splits_character") ? "!split" : ""));
  return out;
}

TEST_F(SignalChannelTest, MarkdownArrivesAsPlainTextWithRangesInUtf16) {
  SignalChannel ch(*api, dm());
  const auto r = ch.send_text("😀 **bold 𝔘** and *it* with `x = 1`");
  ASSERT_TRUE(r.ok()) << r.error();
  const auto shown = fake.bot_messages(kAlice);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].at("body").as_string(), "😀 bold 𝔘 and it with x = 1");
  EXPECT_EQ(styled(shown[0]), (std::vector<std::string>{"BOLD:bold 𝔘", "ITALIC:it", "MONOSPACE:x = 1"}));
  EXPECT_EQ(r.value(), std::to_string(shown[0].at("timestamp").as_int64()));
  EXPECT_TRUE(ch.shown_anything());
}

TEST_F(SignalChannelTest, LongTextIsSplitUnder2000BytesNeverALongTextAttachment) {
  SignalChannel ch(*api, dm());
  std::string text;
  for (int i = 0; i < 400; ++i) text += "wörd" + std::to_string(i) + " **😀** ";
  ASSERT_TRUE(ch.send_text(text).ok());
  const auto shown = fake.bot_messages(kAlice);
  ASSERT_GE(shown.size(), 2u);
  for (const auto& m : shown) {
    EXPECT_LE(m.at("body_bytes").as_int64(), 2000);
    EXPECT_FALSE(m.at("long_text").as_bool());
    for (const std::string& s : styled(m)) EXPECT_EQ(s, "BOLD:😀");
  }
}

TEST_F(SignalChannelTest, ReactsToTheAnsweredMessageByItsAuthor) {
  const std::int64_t ts = fake.user_message("react to me");
  SignalChannel ch(*api, dm(ts));
  ASSERT_TRUE(ch.react("", "🦖").ok());  // any emoji: Signal has no fixed set
  const auto msgs = fake.messages(kAlice);
  ASSERT_EQ(msgs.size(), 1u);
  const auto& reactions = msgs[0].at("reactions").as_array();
  ASSERT_EQ(reactions.size(), 1u);
  EXPECT_EQ(reactions[0].at("emoji").as_string(), "🦖");
  EXPECT_FALSE(ch.react("", "").ok());
}

TEST_F(SignalChannelTest, ReactsToAnEarlierMessageByItsHistoryId) {
  const std::int64_t earlier = fake.user_message("earlier");
  const std::int64_t now = fake.user_message("now");
  SignalChannel ch(*api, dm(now));
  const std::string id = std::string(kAlice) + "/" + std::to_string(earlier);
  const auto r = ch.react(id, "👀");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value(), id);
  const auto msgs = fake.messages(kAlice);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[0].at("reactions").as_array().size(), 1u);
  EXPECT_TRUE(msgs[1].at("reactions").as_array().empty());
}

TEST_F(SignalChannelTest, FilesAndVoiceNotesGoAsDataUris) {
  SignalChannel ch(*api, dm());
  deliver::OutgoingFile f;
  f.payload = deliver::make_bytes_payload("%PDF-1.4 tiny", "report.pdf", "application/pdf");
  f.name = "report.pdf";
  f.kind = "document";
  f.mime_type = "application/pdf";
  f.caption = "the **report**";
  ASSERT_TRUE(ch.send_file(f).ok());
  deliver::OutgoingFile v;
  v.payload = deliver::make_bytes_payload("OggS voice", "note.ogg", "audio/ogg");
  v.mime_type = "audio/ogg";
  ASSERT_TRUE(ch.send_voice(v).ok());
  const auto shown = fake.bot_messages(kAlice);
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_EQ(shown[0].at("body").as_string(), "the report");
  EXPECT_EQ(styled(shown[0]), (std::vector<std::string>{"BOLD:report"}));
  const auto& doc = shown[0].at("attachments").as_array().at(0).as_object();
  EXPECT_EQ(doc.at("contentType").as_string(), "application/pdf");
  EXPECT_EQ(doc.at("filename").as_string(), "report.pdf");
  EXPECT_EQ(doc.at("size").as_int64(), 13);
  EXPECT_TRUE(shown[1].at("voiceNote").as_bool());
  EXPECT_EQ(shown[1].at("attachments").as_array().at(0).at("contentType").as_string(), "audio/ogg");
}

TEST_F(SignalChannelTest, EditsAndDeletesItsOwnMessages) {
  SignalChannel ch(*api, dm());
  const auto sent = ch.send_text("draft");
  ASSERT_TRUE(sent.ok());
  const auto edited = ch.edit_text(sent.value(), "**final**");
  ASSERT_TRUE(edited.ok()) << edited.error();
  EXPECT_EQ(edited.value(), sent.value());
  auto shown = fake.bot_messages(kAlice);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].at("body").as_string(), "final");
  EXPECT_TRUE(shown[0].at("edited").as_bool());
  EXPECT_EQ(styled(shown[0]), (std::vector<std::string>{"BOLD:final"}));
  ASSERT_TRUE(ch.delete_message(sent.value()).ok());
  EXPECT_TRUE(fake.bot_messages(kAlice)[0].at("deleted").as_bool());
  EXPECT_FALSE(ch.edit_text("not-a-timestamp", "x").ok());
}

TEST_F(SignalChannelTest, GroupAnswersQuoteTheMessageAndTypingShows) {
  const std::int64_t ts = fake.user_message(
      boost::json::object{{"from", "bob"}, {"group", kGroup}, {"text", "hi"}, {"mention_bot", true}});
  SignalChannel ch(*api, SignalTarget{"", kGroup, ts, testing::kBob, kAccount});
  EXPECT_TRUE(ch.typing());
  ASSERT_TRUE(ch.send_text("hello group").ok());
  const auto shown = fake.bot_messages(std::string("group:") + kGroup);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].at("quote").at("id").as_int64(), ts);
}

TEST_F(SignalChannelTest, ATimedOutSendIsInDoubtAndNeverRepeated) {
  fake.admin("POST", "/_fake/faults", R"({"match":"send","kind":"timeout"})");
  SignalChannel ch(*api, dm());
  const auto r = ch.send_text("once only");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("outcome unknown"), std::string::npos) << r.error();
  ASSERT_EQ(ch.in_doubt().size(), 1u);
  // It went out once (the fake took it, then held the answer back), and no second copy followed.
  const auto shown = fake.bot_messages(kAlice);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].at("body").as_string(), "once only");
  EXPECT_EQ(fake.journal("rpc").size(), 1u);
}

TEST_F(SignalChannelTest, AServerErrorLeavesASendInDoubtWhileTypingIsMadeAgain) {
  // A 5xx says nothing about whether signal-cli sent the message: never sent again.
  fake.admin("POST", "/_fake/faults", R"({"match":"send","kind":"status","status":503})");
  SignalChannel ch(*api, dm());
  const auto r = ch.send_text("maybe");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("outcome unknown: HTTP 503"), std::string::npos) << r.error();
  EXPECT_EQ(ch.in_doubt().size(), 1u);
  // Typing shows nothing new when made twice: the call is made again after the same fault.
  fake.admin("POST", "/_fake/faults", R"({"match":"sendTyping","kind":"status","status":503})");
  EXPECT_TRUE(ch.typing());
  std::size_t sends = 0, typings = 0;
  for (const auto& e : fake.journal("rpc")) {
    const auto route = e.at("route").as_string();
    if (route == "send") ++sends;
    if (route == "sendTyping") ++typings;
  }
  EXPECT_EQ(sends, 1u);
  EXPECT_EQ(typings, 2u);
}

TEST_F(SignalChannelTest, RateLimitIsWaitedOutAndSentOnce) {
  fake.admin("POST", "/_fake/faults", R"({"match":"send","kind":"rate_limit","retry_after":1})");
  SignalChannel ch(*api, dm());
  ASSERT_TRUE(ch.send_text("after the wait").ok());
  EXPECT_EQ(fake.bot_messages(kAlice).size(), 1u);
  EXPECT_EQ(api->stats().retries, 1u);
}

TEST_F(SignalChannelTest, AnUnregisteredRecipientIsAClearError) {
  SignalChannel ch(*api, SignalTarget{"+15550100099", "", 0, "", kAccount});
  const auto r = ch.send_text("hello?");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("-1 Failed to send message"), std::string::npos) << r.error();
  EXPECT_TRUE(ch.in_doubt().empty());
}

}  // namespace
}  // namespace sigil::channels::signal
