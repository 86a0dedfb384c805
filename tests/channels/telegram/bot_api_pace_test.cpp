// BotApi keeps Telegram's bot-wide and per-group message limits before it calls (channels/send_pace.h):
// against a loopback server that says yes to everything, a call that would exceed a limit waits, and a
// stop ends the wait unsent. No assertion on elapsed time: what was sent is counted.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "sigil/channels/telegram/bot_api.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"
#include "support/python_server.h"

namespace sigil::channels::telegram {
namespace {

using namespace std::chrono_literals;

constexpr const char* kToken = "123:abc";

struct PacedBot {
  explicit PacedBot(BotApiOptions options)
      : server("bot_api_test_server.py"),
        io(std::make_shared<net::IoThreads>(1)),
        http(io),
        api(http, server.base(), kToken, options) {}
  ApiOutcome send(std::int64_t chat, const char* text) {
    return api.call("sendMessage", {{"chat_id", chat}, {"text", text}});
  }
  // Makes `call` while another thread stops the API a moment later; its outcome.
  template <class Call>
  ApiOutcome stopped_during(Call&& call) {
    std::thread stopper([this] {
      std::this_thread::sleep_for(300ms);
      api.stop();
    });
    ApiOutcome o = call();
    stopper.join();
    return o;
  }
  std::size_t sent() const { return server.requests("/bot123:abc/sendMessage").size(); }

  testing::PythonServer server;
  std::shared_ptr<net::IoThreads> io;
  net::HttpClient http;
  BotApi api;
};

TEST(BotApiPace, AGroupGetsItsMinuteLimitAndPrivateChatsAreNotHeldByIt) {
  BotApiOptions o;
  o.group_messages_per_minute = 2;  // one at once, then one every minute
  PacedBot bot(o);
  ASSERT_TRUE(bot.send(-100, "first").ok());
  EXPECT_TRUE(bot.send(-200, "another group").ok());
  EXPECT_TRUE(bot.send(42, "a private chat").ok());
  EXPECT_TRUE(bot.api.call("sendChatAction", {{"chat_id", -100}, {"action", "typing"}}).ok())
      << "typing is not a message";
  const ApiOutcome held = bot.stopped_during([&] { return bot.send(-100, "second"); });
  EXPECT_EQ(held.kind, ApiOutcome::Kind::NotSent);
  EXPECT_EQ(held.description, "stopped");
  EXPECT_EQ(bot.sent(), 3u) << "the group's second message waited for its minute and was never sent";
}

TEST(BotApiPace, TheWholeBotIsPacedAcrossChats) {
  BotApiOptions o;
  o.messages_per_second = 0.1;  // one at once, then one every ten seconds, whichever the chat
  o.message_burst = 1;
  PacedBot bot(o);
  ASSERT_TRUE(bot.send(1, "one").ok());
  const ApiOutcome held = bot.stopped_during([&] { return bot.send(2, "two"); });
  EXPECT_EQ(held.kind, ApiOutcome::Kind::NotSent);
  EXPECT_EQ(bot.sent(), 1u);
  EXPECT_EQ(bot.api.stats().calls, 1u);
}

TEST(BotApiPace, TheDefaultsLetAReplyGoAtOnce) {
  PacedBot bot(BotApiOptions{});
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(bot.send(-100, "part").ok());
  EXPECT_EQ(bot.sent(), 8u);
  EXPECT_EQ(bot.api.stats().paced, 0u) << "8 messages are within both limits' bursts";
}

}  // namespace
}  // namespace sigil::channels::telegram
