// ChatOutboxOptions::repeat_failed_sends (a channel whose repeats are deduplicated by the platform): a failed
// text send is made once more with it, and never without it.
#include <gtest/gtest.h>

#include "deliver/fake_channel.h"
#include "sigil/deliver/chat_outbox.h"

namespace sigil::deliver {
namespace {

// Fails its first `failures` sends (as a time-out after the send went out would), then takes them.
class FlakyChannel final : public Channel {
 public:
  explicit FlakyChannel(int failures) : failures_(failures) { caps_ = testing::caps_plain(); }
  ChannelCapabilities capabilities() const override { return caps_; }
  ChannelResult send_text(std::string_view text) override {
    ++calls;
    if (failures_-- > 0) return channel_error("outcome unknown: timed out");
    sent.emplace_back(text);
    return ChannelResult("m" + std::to_string(sent.size()));
  }
  ChannelResult send_file(const OutgoingFile&) override { return channel_error("no files"); }
  ChannelResult send_voice(const OutgoingFile&) override { return channel_error("no voice"); }
  ChannelResult react(const std::string&, std::string_view) override { return channel_error("no reactions"); }

  int calls = 0;
  std::vector<std::string> sent;

 private:
  ChannelCapabilities caps_;
  int failures_;
};

ChatOutboxOptions held(bool repeat) {
  ChatOutboxOptions o;
  o.stream = StreamPolicy::Never;
  o.repeat_failed_sends = repeat;
  return o;
}

TEST(RepeatFailedSendsTest, AFailedSendIsMadeOnceMore) {
  FlakyChannel ch(1);
  ChatOutbox out(ch, held(true));
  out.text("hello");
  out.end();
  EXPECT_EQ(ch.calls, 2);
  ASSERT_EQ(ch.sent.size(), 1u);
  EXPECT_EQ(ch.sent[0], "hello");
  EXPECT_EQ(out.report().messages_sent, 1u);
  EXPECT_TRUE(out.report().notes.empty());
}

TEST(RepeatFailedSendsTest, OnlyOnceMore) {
  FlakyChannel ch(2);
  ChatOutbox out(ch, held(true));
  out.text("hello");
  out.end();
  EXPECT_EQ(ch.calls, 2);
  EXPECT_TRUE(ch.sent.empty());
  ASSERT_EQ(out.report().notes.size(), 1u);
  EXPECT_EQ(out.report().notes[0].outcome, DeliveryNote::Outcome::Failed);
}

TEST(RepeatFailedSendsTest, NeverWithoutTheOption) {
  FlakyChannel ch(1);
  ChatOutbox out(ch, held(false));
  out.text("hello");
  out.end();
  EXPECT_EQ(ch.calls, 1);
  EXPECT_TRUE(ch.sent.empty());
  EXPECT_EQ(out.report().messages_sent, 0u);
}

}  // namespace
}  // namespace sigil::deliver
