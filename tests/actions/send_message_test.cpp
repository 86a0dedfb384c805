// send-message and sendTelegram (spec 13, 9.6, 15): allow-listed targets only, the Telegram default chat,
// and one reply through the real parser and executor.
#include "sigil/actions/send_message.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>

#include "support/handler_context.h"
#include "support/run_turn.h"

namespace sigil::actions {
namespace {

using Op = exec::Delivery::Op;
using Status = exec::HandlerResult::Status;

// What the fake sender was asked to send: "channel:chat:text".
std::vector<std::string>& sent() {
  static std::vector<std::string> log;
  return log;
}

SendMessageConfig config() {
  SendMessageConfig c;
  c.allowed = {{"Telegram", "123"}, {"slack", "C42"}};
  c.default_telegram_chat = "123";
  c.send = [](const MessageTarget& t, std::string_view text) {
    sent().push_back(t.channel + ":" + t.chat + ":" + std::string(text));
    return std::string();
  };
  return c;
}

class SendMessageTest : public ::testing::Test {
 protected:
  exec::HandlerResult run(const SendMessageConfig& c, boost::json::object args) {
    exec::HandlerTable table;
    add_send_message_handlers(table, c);
    exec::Directive d;
    d.action = "send-message";
    d.args = std::move(args);
    exec::ActionContext ctx = parts_.context();
    return table.find("send-message")->run(d, ctx);
  }

  test::HandlerContext parts_;
};

TEST_F(SendMessageTest, AllowedTargetGetsOneMessageDelivery) {
  auto r = run(config(), {{"channel", "telegram"}, {"chat", "123"}, {"text", "  Hello there \n"}});
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(r.message, "sent to Telegram:123");
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].op, Op::Message);
  EXPECT_EQ(r.deliveries[0].channel, "Telegram");  // as the operator spells it
  EXPECT_EQ(r.deliveries[0].chat, "123");
  EXPECT_EQ(r.deliveries[0].text, "Hello there");
  EXPECT_EQ(boost::json::serialize(r.result), R"({"channel":"Telegram","chat":"123"})");
}

TEST_F(SendMessageTest, ChannelIsCaseInsensitiveChatIsExact) {
  EXPECT_EQ(run(config(), {{"channel", "SLACK"}, {"chat", "C42"}, {"text", "x"}}).status, Status::Ok);
  auto r = run(config(), {{"channel", "slack"}, {"chat", "c42"}, {"text", "x"}});
  EXPECT_EQ(r.status, Status::Error);
  EXPECT_EQ(r.message, "send-message: slack:c42 is not an allowed target");
  EXPECT_TRUE(r.deliveries.empty());
}

TEST_F(SendMessageTest, NotAllowedSendsNothing) {
  auto r = run(config(), {{"channel", "telegram"}, {"chat", "999"}, {"text", "leak"}});
  EXPECT_EQ(r.status, Status::Error);
  EXPECT_EQ(r.message, "send-message: telegram:999 is not an allowed target");
  EXPECT_TRUE(r.deliveries.empty());
  r = run(config(), {{"channel", "discord"}, {"chat", "123"}, {"text", "leak"}});
  EXPECT_EQ(r.message, "send-message: discord:123 is not an allowed target");
}

TEST_F(SendMessageTest, EmptyAllowListRefusesEverything) {
  SendMessageConfig c;
  auto r = run(c, {{"channel", "telegram"}, {"chat", "123"}, {"text", "x"}});
  EXPECT_EQ(r.message, "send-message: telegram:123 is not an allowed target");
  EXPECT_TRUE(r.deliveries.empty());
}

TEST_F(SendMessageTest, EmptyAndOverlongText) {
  auto r = run(config(), {{"channel", "telegram"}, {"chat", "123"}, {"text", " \n "}});
  EXPECT_EQ(r.message, "send-message: the text is empty");
  EXPECT_TRUE(r.deliveries.empty());
  SendMessageConfig c = config();
  c.max_text = 4;
  r = run(c, {{"channel", "telegram"}, {"chat", "123"}, {"text", "hello"}});
  EXPECT_EQ(r.message, "send-message: the text is 5 bytes; at most 4 are allowed");
}

TEST_F(SendMessageTest, TelegramPresetAndDefaultChat) {
  // sendTelegram: channel is never in args (a fixed preset), chat may be missing too.
  auto r = run(config(), {{"text", "to the default"}});
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(r.deliveries[0].chat, "123");
  SendMessageConfig no_default = config();
  no_default.default_telegram_chat.clear();
  r = run(no_default, {{"text", "x"}});
  EXPECT_EQ(r.message,
            "send-message: no chat given and no default Telegram chat is configured; write \"chat\"");
  // A default chat is still only used when allowed.
  SendMessageConfig unlisted = config();
  unlisted.default_telegram_chat = "777";
  EXPECT_EQ(run(unlisted, {{"text", "x"}}).message, "send-message: telegram:777 is not an allowed target");
}

TEST_F(SendMessageTest, SendsThroughTheChannelAndReportsItsError) {
  sent().clear();
  auto r = run(config(), {{"channel", "telegram"}, {"chat", "123"}, {"text", "hi"}});
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(sent(), (std::vector<std::string>{"Telegram:123:hi"}));

  SendMessageConfig failing = config();
  failing.send = [](const MessageTarget&, std::string_view) {
    return std::string("telegram: 403 Forbidden: bot was blocked by the user");
  };
  r = run(failing, {{"channel", "telegram"}, {"chat", "123"}, {"text", "hi"}});
  EXPECT_EQ(r.status, Status::Error);
  EXPECT_EQ(r.message,
            "send-message: Telegram:123: not sent: telegram: 403 Forbidden: bot was blocked by the user");
  EXPECT_TRUE(r.deliveries.empty());
}

TEST_F(SendMessageTest, NoChannelConfiguredIsAnErrorNeverOk) {
  // The bug this guards: the action said "sent" while no channel existed to send anything.
  SendMessageConfig none = config();
  none.send = nullptr;
  auto r = run(none, {{"text", "hello"}});
  EXPECT_EQ(r.status, Status::Error);
  EXPECT_EQ(r.message, "send-message: no channel is configured to send to Telegram:123; nothing was sent");
  EXPECT_TRUE(r.deliveries.empty());
}

TEST(SendMessage, FindAllowedTarget) {
  const SendMessageConfig c = config();
  ASSERT_NE(find_allowed_target(c.allowed, "TELEGRAM", "123"), nullptr);
  EXPECT_EQ(find_allowed_target(c.allowed, "TELEGRAM", "123")->channel, "Telegram");
  EXPECT_EQ(find_allowed_target(c.allowed, "telegram", "1234"), nullptr);
  EXPECT_EQ(find_allowed_target(c.allowed, "telegram", " 123"), nullptr);
}

TEST(SendMessageEndToEnd, BothSpellings) {
  auto store = test::memory_store();
  exec::HandlerTable handlers;
  add_send_message_handlers(handlers, config());
  const test::TurnRun t = test::run_turn(
      "Telling them. <send-message channel=\"slack\" chat=\"C42\">Build is green</send-message>"
      "<sendTelegram>{\"text\":\"Deploy done\"}</sendTelegram>"
      "<send-message channel=\"telegram\" chat=\"666\">psst</send-message> Done.",
      handlers, *store);
  ASSERT_EQ(t.report.results.size(), 3u);
  EXPECT_EQ(t.report.results[0].message, "sent to slack:C42");
  EXPECT_EQ(t.report.results[1].message, "sent to Telegram:123");
  EXPECT_EQ(t.report.results[2].status, exec::ResultStatus::Error);
  std::vector<std::string> messages;
  for (const exec::Delivery& d : t.outbox.ops())
    if (d.op == Op::Message) messages.push_back(d.channel + ":" + d.chat + ":" + d.text);
  EXPECT_EQ(messages, (std::vector<std::string>{"slack:C42:Build is green", "Telegram:123:Deploy done"}));
  EXPECT_EQ(t.model_message, "[3] send-message: error: telegram:666 is not an allowed target\n");
}

}  // namespace
}  // namespace sigil::actions
