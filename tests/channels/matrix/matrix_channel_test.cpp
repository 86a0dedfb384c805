// The Matrix channel (channels/matrix/matrix_channel.h) against the Matrix fake as a real process: text as
// HTML and plain body, the split of a long reply, reactions, files and voice notes, edits and redactions,
// typing, and txnIds that make a repeated send (ClientApi's or the outbox's) one event.
#include "sigil/channels/matrix/matrix_channel.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "channels/matrix/matrix_fake.h"
#include "deliver/fake_channel.h"
#include "sigil/deliver/chat_outbox.h"

namespace sigil::channels::matrix {
namespace {

using testing::kBot;
using testing::kDm;
using testing::kToken;

class MatrixChannelTest : public testing::MatrixFakeTest {
 protected:
  void SetUp() override {
    MatrixFakeTest::SetUp();
    if (HasFatalFailure()) return;
    ApiOptions options;
    options.retry_pause = std::chrono::milliseconds(20);
    options.request_timeout = std::chrono::milliseconds(1500);
    api = std::make_unique<ClientApi>(*http, fake.url(), kToken, options);
    answering = fake.user_message("hi");
  }
  MatrixTarget target(const std::string& seed = "turn-1") { return {kDm, answering, seed, kBot, false}; }
  boost::json::array mine(const std::string& type = "m.room.message") {
    return fake.events_by(kDm, kBot, type);
  }

  std::unique_ptr<ClientApi> api;
  std::string answering;
};

TEST_F(MatrixChannelTest, SendsMarkdownAsHtmlWithAPlainBody) {
  MatrixChannel ch(*api, target());
  const deliver::ChannelResult r = ch.send_text("**Hello** <world> & `x`");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(ch.shown_anything());
  const auto sent = mine();
  ASSERT_EQ(sent.size(), 1u);
  const auto& c = sent[0].at("content").as_object();
  EXPECT_EQ(c.at("msgtype").as_string(), "m.text");
  EXPECT_EQ(c.at("format").as_string(), "org.matrix.custom.html");
  EXPECT_EQ(c.at("formatted_body").as_string(), "<strong>Hello</strong> &lt;world&gt; &amp; <code>x</code>");
  EXPECT_EQ(c.at("body").as_string(), "Hello <world> & x");
  EXPECT_EQ(sent[0].at("event_id").as_string(), r.value());
}

TEST_F(MatrixChannelTest, ALongReplyIsSplitIntoEventsTheHomeserverTakes) {
  // 16,000 code points of 4-byte emoji and HTML-escaped text: far over one event in bytes.
  std::string text;
  for (int i = 0; i < 6000; ++i) text += "\xF0\x9F\x98\x80<&";
  deliver::ChatOutboxOptions o;
  o.stream = deliver::StreamPolicy::Never;
  MatrixChannel ch(*api, target());
  deliver::ChatOutbox out(ch, o);
  out.text(text);
  out.end();
  const auto sent = mine();
  ASSERT_GE(sent.size(), 2u);
  std::string body;
  for (const auto& e : sent) {
    EXPECT_LE(boost::json::serialize(e.at("content")).size(), 48'000u);
    body += std::string(e.at("content").at("body").as_string());
  }
  EXPECT_EQ(body, text);  // nothing lost, nothing twice
  for (const auto& note : out.report().notes) EXPECT_EQ(note.outcome, deliver::DeliveryNote::Outcome::Split);
}

TEST_F(MatrixChannelTest, ReactsWithTheEmojiItselfOnceEvenWhenAskedTwice) {
  MatrixChannel ch(*api, target());
  ASSERT_TRUE(ch.react("", "\xF0\x9F\x91\x8D").ok());
  MatrixChannel again(*api, target("turn-2"));  // another txnId: the homeserver says M_DUPLICATE_ANNOTATION
  ASSERT_TRUE(again.react(answering, "\xF0\x9F\x91\x8D").ok());
  const auto reactions = mine("m.reaction");
  ASSERT_EQ(reactions.size(), 1u);
  const auto& rel = reactions[0].at("content").at("m.relates_to");
  EXPECT_EQ(rel.at("rel_type").as_string(), "m.annotation");
  EXPECT_EQ(rel.at("key").as_string(), "\xF0\x9F\x91\x8D");
  EXPECT_EQ(rel.at("event_id").as_string(), answering);
  EXPECT_FALSE(ch.react("not-an-event", "x").ok());
}

TEST_F(MatrixChannelTest, FilesAndVoiceNotesAreUploadedThenSent) {
  MatrixChannel ch(*api, target());
  deliver::OutgoingFile f;
  f.payload = std::make_shared<deliver::testing::MemoryPayload>("report.pdf", "%PDF-1.4 bytes");
  f.kind = "document";
  f.name = "report.pdf";
  f.mime_type = "application/pdf";
  f.caption = "the **report**";
  ASSERT_TRUE(ch.send_file(f).ok());
  deliver::OutgoingFile v;
  v.payload = std::make_shared<deliver::testing::MemoryPayload>("voice.ogg", "OggS voice");
  v.mime_type = "audio/ogg";
  v.duration_ms = 2500;
  ASSERT_TRUE(ch.send_voice(v).ok());
  const auto sent = mine();
  ASSERT_EQ(sent.size(), 3u);
  const auto& file = sent[0].at("content").as_object();
  EXPECT_EQ(file.at("msgtype").as_string(), "m.file");
  EXPECT_EQ(file.at("body").as_string(), "report.pdf");
  EXPECT_EQ(file.at("info").at("size").to_number<std::int64_t>(), 14);
  const std::string uri(file.at("url").as_string());
  const auto media = fake.admin("GET", "/_fake/media/" + uri.substr(uri.rfind('/') + 1));
  EXPECT_EQ(media.at("media").at("content_type").as_string(), "application/pdf");
  EXPECT_EQ(sent[1].at("content").at("formatted_body").as_string(), "the <strong>report</strong>");
  const auto& voice = sent[2].at("content").as_object();
  EXPECT_EQ(voice.at("msgtype").as_string(), "m.audio");
  EXPECT_TRUE(voice.contains("org.matrix.msc3245.voice"));
  EXPECT_EQ(voice.at("org.matrix.msc1767.audio").at("duration").to_number<std::int64_t>(), 2500);
}

TEST_F(MatrixChannelTest, EditsReplaceAndDeletesRedact) {
  MatrixChannel ch(*api, target());
  const auto r = ch.send_text("draft");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(ch.edit_text(r.value(), "**final**").ok());
  auto events = fake.events(kDm);
  const auto& original = events[events.size() - 2];
  EXPECT_EQ(original.at("shown_content").at("formatted_body").as_string(), "<strong>final</strong>");
  EXPECT_FALSE(original.as_object().contains("invalid_edit"));
  ASSERT_TRUE(ch.delete_message(r.value()).ok());
  bool redacted = false;
  for (const auto& e : fake.events(kDm))
    if (e.at("event_id").as_string() == r.value()) redacted = e.at("redacted").as_bool();
  EXPECT_TRUE(redacted);
  EXPECT_TRUE(ch.typing());
  const auto room = fake.admin("GET", "/_fake/rooms/" + net::percent_encode(kDm));
  EXPECT_NE(boost::json::serialize(room.at("room").at("typing")).find(kBot), std::string::npos);
}

TEST_F(MatrixChannelTest, TheSameTurnRunAgainMakesTheSameTxnIdsAndNoSecondEvent) {
  {
    MatrixChannel ch(*api, target("turn-7"));
    ASSERT_TRUE(ch.send_text("once").ok());
    ASSERT_TRUE(ch.react("", "\xE2\x9C\x85").ok());
  }
  MatrixChannel resumed(*api, target("turn-7"));  // the turn resumed after a restart
  ASSERT_TRUE(resumed.send_text("once").ok());
  ASSERT_TRUE(resumed.react("", "\xE2\x9C\x85").ok());
  EXPECT_EQ(mine().size(), 1u);
  EXPECT_EQ(mine("m.reaction").size(), 1u);
}

TEST_F(MatrixChannelTest, ASendInDoubtRepeatedIsTheSameTransaction) {
  // Every attempt ClientApi makes times out after the event was stored: the outcome stays unknown.
  ApiOptions options;
  options.max_attempts = 2;
  options.retry_pause = std::chrono::milliseconds(10);
  options.request_timeout = std::chrono::milliseconds(300);
  ClientApi slow(*http, fake.url(), kToken, options);
  fake.fault({{"match", "send"}, {"kind", "timeout"}, {"times", 2}});
  MatrixChannel ch(slow, target());
  const deliver::ChannelResult first = ch.send_text("only one of me");
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().find("outcome unknown"), std::string::npos);
  EXPECT_EQ(ch.in_doubt().size(), 1u);
  // The same text again: the same txnId, answered with the event the first attempt stored.
  const deliver::ChannelResult again = ch.send_text("only one of me");
  ASSERT_TRUE(again.ok()) << again.error();
  ASSERT_EQ(mine().size(), 1u);
  EXPECT_EQ(mine()[0].at("event_id").as_string(), again.value());
  // A different text is a new transaction.
  EXPECT_TRUE(ch.send_text("another").ok());
  EXPECT_EQ(mine().size(), 2u);
}

TEST_F(MatrixChannelTest, TheOutboxRepeatsASendInDoubtAsTheSameTransaction) {
  ApiOptions options;
  options.max_attempts = 2;
  options.retry_pause = std::chrono::milliseconds(10);
  options.request_timeout = std::chrono::milliseconds(300);
  ClientApi slow(*http, fake.url(), kToken, options);
  fake.fault({{"match", "send"}, {"kind", "timeout"}, {"times", 2}});
  deliver::ChatOutboxOptions o;
  o.stream = deliver::StreamPolicy::Never;
  o.repeat_failed_sends = true;
  MatrixChannel ch(slow, target());
  deliver::ChatOutbox out(ch, o);
  out.text("only one of me");
  out.end();
  EXPECT_EQ(out.report().messages_sent, 1u);
  EXPECT_TRUE(out.report().notes.empty());
  ASSERT_EQ(mine().size(), 1u);
  EXPECT_EQ(ch.in_doubt().size(), 1u);  // the first call's doubt, resolved by its repeat
}

}  // namespace
}  // namespace sigil::channels::matrix
