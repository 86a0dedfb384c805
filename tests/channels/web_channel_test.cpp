// The web chat channel: what the deliver layer's outbox calls become as web chat protocol frames.
#include "sigil/channels/web/web_channel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <vector>

#include "../support/alloc_counter.h"
#include "deliver/fake_channel.h"
#include "sigil/deliver/chat_outbox.h"

namespace sigil::channels::web {
namespace {

namespace dt = sigil::deliver::testing;
namespace json = boost::json;

struct Recorder {
  std::vector<json::object> frames;
  std::vector<std::string> published;  // names of files kept
  bool fail_publish = false;

  WebTransport transport() {
    WebTransport t;
    t.send = [this](WebFrame frame) { frames.push_back(json::parse(serialize(frame)).as_object()); };
    t.publish = [this](const deliver::OutgoingFile& file, bool voice, PublishedMedia& out,
                       std::string& error) {
      if (fail_publish) {
        error = "media: disk full";
        return false;
      }
      published.push_back(file.name);
      out.url = "/media/" + std::string(64, 'a') + "/" + file.name;
      out.name = file.name;
      out.mime = voice ? "audio/ogg" : "application/pdf";
      out.sha256 = std::string(64, 'a');
      out.size = file.size;
      return true;
    };
    return t;
  }
  std::vector<std::string> types() const {
    std::vector<std::string> out;
    for (const auto& f : frames) {
      std::string t(f.at("type").as_string());
      if (const auto* op = f.if_contains("op")) t += ":" + std::string(op->as_string());
      out.push_back(t);
    }
    return out;
  }
};

deliver::ChatOutboxOptions web_options(WebChannel& channel) {
  deliver::ChatOutboxOptions o;
  o.reply_to = std::string(WebChannel::kTurnMessage);
  o.other_chat = [&channel](const deliver::Delivery& d) { return channel.relayed(d); };
  return o;
}

TEST(WebChannel, CapabilitiesAreEverything) {
  Recorder rec;
  WebChannel ch(rec.transport(), "t1");
  const auto c = ch.capabilities();
  EXPECT_TRUE(c.append);
  EXPECT_TRUE(c.deletes);
  EXPECT_TRUE(c.voice_notes);
  EXPECT_TRUE(c.accepts_reaction("\xF0\x9F\x91\x8D"));
  EXPECT_EQ(c.text_limit, 0U);
}

TEST(WebChannel, ATurnThroughTheOutboxExactly) {
  Recorder rec;
  WebChannel ch(rec.transport(), "t1");
  deliver::ChatOutbox box(ch, web_options(ch));
  EXPECT_TRUE(box.streaming());  // it can append and delete: text streams (spec 12.7)
  box.deliver(dt::reaction("\xF0\x9F\x91\x8D"));
  box.text("  Here is ");
  box.text("the report:");
  box.deliver(dt::file_delivery("report.pdf", "document", std::string(1234, 'p'), "Q3"));
  box.deliver(dt::voice_delivery("hello.ogg", 3200));
  box.text(" Anything else?");
  box.deliver(dt::reaction("\xE2\x9C\x85", "t0"));  // on an earlier turn's message
  box.deliver(dt::message_delivery("telegram", "42", "relayed"));
  box.end();

  EXPECT_EQ(rec.types(),
            (std::vector<std::string>{"delivery:reaction", "text", "text", "delivery:file", "delivery:voice",
                                      "text", "delivery:reaction", "delivery:message"}));
  const auto& f = rec.frames;
  EXPECT_EQ(f[0].at("message"), "");  // the turn's own message
  EXPECT_EQ(f[0].at("turn"), "t1");
  // A message never starts with whitespace; trailing whitespace waits until more text follows it.
  EXPECT_EQ(f[1].at("text"), "Here is");
  EXPECT_EQ(f[1].at("message"), "m1");
  EXPECT_EQ(f[2].at("text"), " the report:");  // appended to the same message
  EXPECT_EQ(f[2].at("message"), "m1");
  EXPECT_EQ(f[3].at("name"), "report.pdf");
  EXPECT_EQ(f[3].at("kind"), "document");
  EXPECT_EQ(f[3].at("caption"), "Q3");
  EXPECT_EQ(f[3].at("size"), 1234);
  EXPECT_EQ(f[3].at("url").as_string(), "/media/" + std::string(64, 'a') + "/report.pdf");
  EXPECT_EQ(f[4].at("kind"), "voice");
  EXPECT_EQ(f[4].at("duration_ms"), 3200);
  EXPECT_EQ(f[5].at("message"), "m2");  // text after a file is a new message
  EXPECT_EQ(f[5].at("text"), "Anything else?");
  EXPECT_EQ(f[6].at("message"), "t0");
  EXPECT_EQ(f[7].at("text"), "relayed");
  EXPECT_EQ(f[7].at("chat"), "42");
  EXPECT_EQ(rec.published, (std::vector<std::string>{"report.pdf", "hello.ogg"}));
  EXPECT_TRUE(box.report().empty());
}

TEST(WebChannel, ALateSentinelDeletesTheShownMessages) {
  Recorder rec;
  WebChannel ch(rec.transport(), "t1");
  deliver::ChatOutbox box(ch, web_options(ch));
  box.text("First part.");
  box.end_message();  // a say block ended
  box.text("\n\nSecond part.");
  box.silence(true);
  box.text("dropped");
  box.end();
  EXPECT_EQ(rec.types(), (std::vector<std::string>{"text", "text", "delete", "delete"}));
  EXPECT_EQ(rec.frames[1].at("message"), "m2");
  EXPECT_EQ(rec.frames[1].at("text"), "Second part.");
  std::vector<std::string> deleted{std::string(rec.frames[2].at("message").as_string()),
                                   std::string(rec.frames[3].at("message").as_string())};
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, (std::vector<std::string>{"m1", "m2"}));
}

TEST(WebChannel, AFileThatCannotBeKeptFallsBackAndIsReported) {
  Recorder rec;
  rec.fail_publish = true;
  WebChannel ch(rec.transport(), "t1");
  deliver::ChatOutbox box(ch, web_options(ch));
  box.deliver(dt::file_delivery("report.pdf", "document", "PDF!", ""));
  box.end();
  // document failed -> a text line naming the file
  ASSERT_FALSE(rec.frames.empty());
  const auto& last = rec.frames.back();
  EXPECT_EQ(last.at("type"), "text");
  EXPECT_NE(std::string(last.at("text").as_string()).find("report.pdf"), std::string::npos);
  ASSERT_FALSE(box.report().empty());
  const auto lines = box.report().lines();
  EXPECT_NE(lines.front().find("disk full"), std::string::npos) << lines.front();
}

TEST(WebChannel, TheTurnIdCanBeLearntLate) {
  Recorder rec;
  WebChannel ch(rec.transport(), "");
  ch.set_turn("sched-1");
  ASSERT_TRUE(ch.send_text("hi").ok());
  EXPECT_EQ(rec.frames.at(0).at("turn"), "sched-1");
}

// One piece per token on a busy gateway: every piece of a turn carries the channel's id itself, not a copy
// (a web turn's id is longer than a string keeps inline: a copy per piece was an allocation per token).
TEST(WebChannel, ATurnsPiecesShareItsId) {
  std::vector<WebFrame> sent;
  WebTransport t;
  sent.reserve(8);  // the recording itself allocates nothing while counted
  t.send = [&sent](WebFrame frame) { sent.push_back(std::move(frame)); };
  const std::string turn = "web-0123456789abcdef";
  WebChannel ch(std::move(t), turn);
  auto id = ch.send_text("a");
  ASSERT_TRUE(id.ok());
  {
    const testing::AllocationCount count;
    ASSERT_TRUE(ch.append_text(*id, "b").ok());
    ASSERT_TRUE(ch.edit_text(*id, "c").ok());
    EXPECT_EQ(count.count(), 0u);  // short texts and ids stay inline; the turn's id is shared
  }
  ASSERT_EQ(sent.size(), 3u);
  const std::string* shared = &std::get<TextPiece>(sent[0]).turn.str();
  for (const WebFrame& f : sent) {
    EXPECT_EQ(&std::get<TextPiece>(f).turn.str(), shared);
    EXPECT_EQ(std::get<TextPiece>(f).turn.str(), turn);
  }
  ch.set_turn("web-fedcba9876543210");  // a turn learnt late: its later pieces carry the new id
  ASSERT_TRUE(ch.append_text(*id, "d").ok());
  EXPECT_EQ(std::get<TextPiece>(sent.back()).turn.str(), "web-fedcba9876543210");
  EXPECT_EQ(std::get<TextPiece>(sent[0]).turn.str(), turn);
}

}  // namespace
}  // namespace sigil::channels::web
