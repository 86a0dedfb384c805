// The WhatsApp Cloud API client and channel (channels/whatsapp/graph_api.h, whatsapp_channel.h) against the
// fake (tests/fakes/whatsapp.mjs) as a real process over loopback: text rendered and split at 4,096
// characters, reactions with any emoji, uploads then media messages (voice notes with voice: true), a
// user's media downloaded, 131047 outside the window as a clear error, a 429's Retry-After waited out, a
// time-out after the send in doubt and never repeated, no edits or deletes, typing by the read receipt.
#include "sigil/channels/whatsapp/whatsapp_channel.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <chrono>

#include "channels/whatsapp/whatsapp_fake.h"
#include "deliver/fake_channel.h"
#include "sigil/deliver/split.h"

namespace sigil::channels::whatsapp {
namespace {

using testing::kAlice;
using testing::kPhoneNumberId;

class WhatsAppChannelTest : public testing::WhatsAppFakeTest {
 protected:
  void SetUp() override {
    WhatsAppFakeTest::SetUp();
    if (HasFatalFailure()) return;
    api = make_api(std::chrono::seconds(2));
  }
  std::unique_ptr<GraphApi> make_api(std::chrono::milliseconds timeout) {
    GraphOptions o;
    o.request_timeout = timeout;
    o.retry_pause = std::chrono::milliseconds(20);
    return std::make_unique<GraphApi>(*http, fake.api(), testing::kToken, kPhoneNumberId, o);
  }
  // POST messages calls in the journal.
  std::size_t message_calls() {
    std::size_t n = 0;
    for (const auto& e : fake.journal("api"))
      if (e.at("route").as_string() == "POST messages") ++n;
    return n;
  }
  std::unique_ptr<GraphApi> api;
};

TEST_F(WhatsAppChannelTest, TextIsRenderedAndSent) {
  const std::string asked = fake.user_says("hello");
  WhatsAppChannel ch(*api, {kAlice, asked});
  const auto r = ch.send_text("**Hi** _there_, see [the docs](https://example.org) and `code`\n\n- a\n- b");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r.value().starts_with("wamid."));
  EXPECT_TRUE(ch.shown_anything());
  const auto sent = fake.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].at("text").at("body").as_string(),
            "*Hi* _there_, see the docs (https://example.org) and `code`\n\n- a\n- b");
  EXPECT_FALSE(sent[0].at("text").at("preview_url").as_bool());
}

TEST_F(WhatsAppChannelTest, LongTextIsSplitAt4096Characters) {
  fake.user_says("a long one please");
  WhatsAppChannel ch(*api, {kAlice, ""});
  std::string text;
  for (int i = 0; i < 900; ++i) text += "word\xC3\xA9 ";  // 6 characters, 7 bytes each: 5,400 characters
  ASSERT_TRUE(ch.send_text(text).ok());
  const auto sent = fake.sent();
  ASSERT_EQ(sent.size(), 2u);
  std::size_t words = 0;
  for (const auto& m : sent) {
    const std::string body(m.at("text").at("body").as_string());
    EXPECT_LE(deliver::text_units(body, deliver::TextUnit::CodePoints), 4096u);
    for (std::size_t at = 0; (at = body.find("word\xC3\xA9", at)) != std::string::npos; ++at) ++words;
  }
  EXPECT_EQ(words, 900u);  // cut between words: every word arrives, once
}

TEST_F(WhatsAppChannelTest, ReactsWithAnyEmojiToTheMessageAnswered) {
  const std::string asked = fake.user_says("react");
  WhatsAppChannel ch(*api, {kAlice, asked});
  EXPECT_TRUE(ch.capabilities().accepts_reaction("\xF0\x9F\xA6\x96"));  // 🦖: any emoji
  ASSERT_TRUE(ch.react("", "\xF0\x9F\xA6\x96").ok());
  EXPECT_EQ(fake.chat().at("messages").at(0).at("reaction").as_string(), "\xF0\x9F\xA6\x96");
  const auto bad = ch.react("", "two words");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("131009"), std::string::npos) << bad.error();
  EXPECT_TRUE(ch.react("", "\xF0\x9F\x91\x8D").ok());  // replaces the first
}

TEST_F(WhatsAppChannelTest, FilesAndVoiceNotesAreUploadedThenSent) {
  const std::string asked = fake.user_says("files");
  WhatsAppChannel ch(*api, {kAlice, asked});
  deliver::OutgoingFile doc;
  doc.payload =
      std::make_shared<deliver::testing::MemoryPayload>("report.pdf", "%PDF-1.4 x", "application/pdf");
  doc.name = "report.pdf";
  doc.kind = "document";
  doc.caption = "the **report**";
  ASSERT_TRUE(ch.send_file(doc).ok());
  deliver::OutgoingFile voice;
  voice.payload = std::make_shared<deliver::testing::MemoryPayload>("voice.ogg", "OggS-not-really",
                                                                    "audio/ogg; codecs=opus");
  voice.name = "voice.ogg";
  ASSERT_TRUE(ch.send_voice(voice).ok());
  deliver::OutgoingFile md;  // text of any kind goes as text/plain
  md.payload = std::make_shared<deliver::testing::MemoryPayload>("notes.md", "# notes", "text/markdown");
  md.name = "notes.md";
  md.kind = "document";
  ASSERT_TRUE(ch.send_file(md).ok());
  deliver::OutgoingFile exe;
  exe.payload =
      std::make_shared<deliver::testing::MemoryPayload>("tool.exe", "MZ", "application/x-msdownload");
  exe.name = "tool.exe";
  exe.kind = "document";
  const auto refused = ch.send_file(exe);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("WhatsApp takes no file of this type"), std::string::npos)
      << refused.error();

  const auto sent = fake.sent();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].at("type").as_string(), "document");
  EXPECT_EQ(sent[0].at("document").at("filename").as_string(), "report.pdf");
  EXPECT_EQ(sent[0].at("document").at("caption").as_string(), "the *report*");
  EXPECT_EQ(sent[1].at("type").as_string(), "audio");
  EXPECT_TRUE(sent[1].at("audio").at("voice").as_bool());
  EXPECT_EQ(sent[1].at("audio").at("mime_type").as_string(), "audio/ogg");
  EXPECT_EQ(sent[2].at("document").at("mime_type").as_string(), "text/plain");
}

TEST_F(WhatsAppChannelTest, AUsersMediaIsDownloadedWithTheToken) {
  auto injected = fake.user_message(
      {{"image",
        {{"name", "cat.png"}, {"data_base64", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"}, {"caption", "cat"}}}});
  const std::string id(injected.at("message").at("image").at("id").as_string());
  const auto bytes = api->download(id, 1 << 20);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(bytes.value().substr(1, 3), "PNG");
  EXPECT_FALSE(api->download(id, 4).ok());  // over the limit
  EXPECT_FALSE(api->download("not-an-id", 1 << 20).ok());
  EXPECT_FALSE(api->download("123456789", 1 << 20).ok());  // no such media
}

TEST_F(WhatsAppChannelTest, OutsideTheWindowIsAClearError) {
  fake.user_says("old");
  fake.admin("POST", std::string("/_fake/users/") + kAlice + "/window", R"({"open":false})");
  WhatsAppChannel ch(*api, {kAlice, ""});
  const auto r = ch.send_text("too late");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("24 hours"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("131047"), std::string::npos) << r.error();
  EXPECT_EQ(fake.sent().size(), 0u);
  EXPECT_EQ(message_calls(), 1u);  // refused once, not tried again
}

TEST_F(WhatsAppChannelTest, ThrottlingIsWaitedOutAndSentOnce) {
  fake.user_says("hi");
  fake.fault(R"({"match":"POST messages","kind":"rate_limit","retry_after":1})");
  fake.fault(R"({"match":"POST messages","kind":"status","status":400,"code":131056})");
  WhatsAppChannel ch(*api, {kAlice, ""});
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(ch.send_text("after the wait").ok());
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(950));
  EXPECT_EQ(message_calls(), 3u);
  EXPECT_EQ(fake.sent().size(), 1u);
  EXPECT_EQ(api->stats().retries, 2u);
}

TEST_F(WhatsAppChannelTest, ATimeOutAfterTheSendIsInDoubtAndNeverRepeated) {
  fake.user_says("hi");
  fake.fault(R"({"match":"POST messages","kind":"timeout"})");
  auto slow = make_api(std::chrono::milliseconds(300));
  WhatsAppChannel ch(*slow, {kAlice, ""});
  const auto r = ch.send_text("said once");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("outcome unknown"), std::string::npos) << r.error();
  EXPECT_EQ(ch.in_doubt().size(), 1u);
  EXPECT_EQ(message_calls(), 1u);
  EXPECT_EQ(fake.sent().size(), 1u);  // it went through, once
  // A 5xx is in doubt too: never repeated.
  fake.fault(R"({"match":"POST messages","kind":"status","status":500,"code":131000})");
  EXPECT_FALSE(ch.send_text("maybe").ok());
  EXPECT_EQ(message_calls(), 2u);
}

TEST_F(WhatsAppChannelTest, NoEditsNoDeletesAndTypingIsTheReadReceipt) {
  const std::string asked = fake.user_says("typing?");
  WhatsAppChannel ch(*api, {kAlice, asked});
  const auto caps = ch.capabilities();
  EXPECT_FALSE(caps.edits);
  EXPECT_FALSE(caps.deletes);
  EXPECT_EQ(caps.text_limit, 4096u);
  EXPECT_TRUE(caps.voice_notes);
  EXPECT_TRUE(ch.typing());
  const auto chat = fake.chat();
  EXPECT_EQ(chat.at("typing").as_int64(), 1);
  EXPECT_EQ(chat.at("reads").at(0).as_string(), asked);
  WhatsAppChannel none(*api, {kAlice, ""});
  EXPECT_FALSE(none.typing());
}

TEST(WhatsAppMediaChoice, WhatsAppsTypesOrADocument) {
  EXPECT_EQ(media_choice("image", "image/png", "a.png").kind, "image");
  EXPECT_EQ(media_choice("image", "image/webp", "a.webp").kind, "document");
  EXPECT_EQ(media_choice("image", "image/webp", "a.webp").mime_type, "");
  EXPECT_EQ(media_choice("video", "", "clip.mp4").kind, "video");
  EXPECT_EQ(media_choice("audio", "audio/ogg; codecs=opus", "v.ogg").mime_type, "audio/ogg");
  EXPECT_EQ(media_choice("document", "", "data.csv").mime_type, "text/plain");
}

}  // namespace
}  // namespace sigil::channels::whatsapp
