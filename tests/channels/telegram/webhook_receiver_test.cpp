// The webhook receiver's answers before anything is processed (channels/telegram/webhook_receiver.h): the
// secret header is checked first (401 without, 403 wrong), and an update with the right one is not taken
// (503, so Telegram delivers it again) until the receiver knows the bot (getMe) and after it stopped.
// What happens to updates it takes is tested end to end in cli.telegram_webhook_test.
#include "sigil/channels/telegram/webhook_receiver.h"

#include <gtest/gtest.h>

#include <memory>

#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"

namespace sigil::channels::telegram {
namespace {

TEST(TelegramWebhook, RefusesWithoutTheSecretAndWaitsUntilReady) {
  auto io = std::make_shared<net::IoThreads>(1);
  net::HttpClient http(io);
  // Nothing listens there; start() is never called, so no call is made.
  BotApi api(http, "http://127.0.0.1:9", "123:abc");
  int offered = 0;
  WebhookReceiver receiver(api, {"https://bot.example/tg", "right-secret", {}},
                           [&](std::int64_t, const std::optional<InboundMessage>&, Verdict) {
                             ++offered;
                             return true;
                           });
  const std::string update = R"({"update_id":5,"message":{"message_id":1,"chat":{"id":1,"type":"private"},
    "from":{"id":1,"first_name":"A"},"text":"hi"}})";
  EXPECT_EQ(receiver.receive("", update).status, 401);
  EXPECT_EQ(receiver.receive("wrong-secret", update).status, 403);
  EXPECT_EQ(receiver.receive("right-secre", update).status, 403);
  EXPECT_EQ(receiver.receive("right-secret", update).status, 503);  // getMe has not answered
  receiver.stop();
  EXPECT_EQ(receiver.receive("right-secret", update).status, 503);
  EXPECT_EQ(receiver.receive("", update).status, 401);
  EXPECT_FALSE(receiver.registered());
  EXPECT_EQ(offered, 0);
}

}  // namespace
}  // namespace sigil::channels::telegram
