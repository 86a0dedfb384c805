// [channels.telegram] in sigil.toml (docs/configuration.md, docs/channels/telegram.md).
#include <gtest/gtest.h>

#include <string>

#include "app/config.h"
#include "app/config_test_support.h"

namespace sigil::app {
namespace {

using testing::env_of;
using testing::error_of;
using testing::expect_errors;

constexpr std::string_view kToken = "123456789:AAHfakeTokenForSigilTests00000000000";

TEST(TelegramConfig, OffWithoutTheSection) {
  const Config c =
      load_config_text("", "s.toml", {}, env_of({{"SIGIL_TELEGRAM_TOKEN", std::string(kToken)}}));
  EXPECT_FALSE(c.channels.telegram.enabled);
}

TEST(TelegramConfig, ReadsEveryKeyWithDefaults) {
  const Config d = load_config_text("[channels.telegram]\ntoken = \"" + std::string(kToken) + "\"\n",
                                    "s.toml", {}, env_of({}));
  EXPECT_TRUE(d.channels.telegram.enabled);
  EXPECT_EQ(d.channels.telegram.token, kToken);
  EXPECT_EQ(d.channels.telegram.api_url, "https://api.telegram.org");
  EXPECT_EQ(d.channels.telegram.mode, "polling");
  EXPECT_TRUE(d.channels.telegram.allowed_users.empty());
  EXPECT_EQ(d.channels.telegram.poll_timeout_seconds, 30);

  const Config c = load_config_text(R"([channels.telegram]
api_url = "http://127.0.0.1:9000/"
mode = "polling"
allowed_users = [1001, 42]
poll_timeout = 5
)",
                                    "s.toml", {}, env_of({{"SIGIL_TELEGRAM_TOKEN", std::string(kToken)}}));
  EXPECT_EQ(c.channels.telegram.token, kToken);
  EXPECT_EQ(c.channels.telegram.api_url, "http://127.0.0.1:9000");  // trailing slash removed
  EXPECT_EQ(c.channels.telegram.allowed_users, (std::vector<std::int64_t>{1001, 42}));
  EXPECT_EQ(c.channels.telegram.poll_timeout_seconds, 5);
}

TEST(TelegramConfig, WebhookModeStreamingAndDownloads) {
  const Config d = load_config_text("[channels.telegram]\ntoken = \"" + std::string(kToken) + "\"\n",
                                    "s.toml", {}, env_of({}));
  EXPECT_TRUE(d.channels.telegram.stream);
  EXPECT_EQ(d.channels.telegram.edit_interval_ms, 1000);
  EXPECT_EQ(d.channels.telegram.max_download_bytes, 20u << 20);

  const Config c = load_config_text(R"([channels.telegram]
mode = "webhook"
webhook_url = "https://bot.example.com/telegram/webhook?x=1"
webhook_secret = "from-the-file"
stream = false
edit_interval_ms = 1500
max_download_mb = 5
)",
                                    "s.toml", {},
                                    env_of({{"SIGIL_TELEGRAM_TOKEN", std::string(kToken)},
                                            {"SIGIL_TELEGRAM_WEBHOOK_SECRET", "from_the_env-1"}}));
  EXPECT_EQ(c.channels.telegram.mode, "webhook");
  EXPECT_EQ(c.channels.telegram.webhook_url, "https://bot.example.com/telegram/webhook?x=1");
  EXPECT_EQ(c.channels.telegram.webhook_path, "/telegram/webhook");
  EXPECT_EQ(c.channels.telegram.webhook_secret, "from_the_env-1");  // the environment wins
  EXPECT_FALSE(c.channels.telegram.stream);
  EXPECT_EQ(c.channels.telegram.edit_interval_ms, 1500);
  EXPECT_EQ(c.channels.telegram.max_download_bytes, 5u << 20);
  const std::string described = c.describe();
  EXPECT_NE(described.find("webhook_secret (set)"), std::string::npos) << described;
  EXPECT_EQ(described.find("from_the_env"), std::string::npos) << described;
}

TEST(TelegramConfig, TheEnvironmentTokenWins) {
  const Config c = load_config_text("[channels.telegram]\ntoken = \"1:a\"\n", "s.toml", {},
                                    env_of({{"SIGIL_TELEGRAM_TOKEN", std::string(kToken)}}));
  EXPECT_EQ(c.channels.telegram.token, kToken);
}

TEST(TelegramConfig, ClearErrors) {
  expect_errors({
      {"[channels.telegram]\n", {"[channels.telegram] needs the bot's token", "SIGIL_TELEGRAM_TOKEN"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nmode = \"webhook\"\n",
       {"[channels.telegram] mode \"webhook\" needs webhook_url"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nmode = \"webhook\"\nwebhook_url = \"https://b.example/tg\"\n",
       {"needs webhook_secret (or SIGIL_TELEGRAM_WEBHOOK_SECRET)"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nwebhook_url = \"https://b.example\"\n",
       {"webhook_url must be the public URL Telegram posts to, with a path"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nwebhook_url = \"https://b.example/v1/ws\"\n",
       {"webhook_url must not use a path of the gateway's own (/v1/)"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nwebhook_url = \"https://b.example/healthz\"\n",
       {"webhook_url must not use a path of the gateway's own (/healthz)"}},
      // a secret is never quoted back
      {"[channels.telegram]\ntoken = \"1:a\"\nwebhook_secret = \"no spaces!\"\n",
       {"webhook_secret must be 1-256 of A-Z"},
       {"no spaces!"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nmode = \"push\"\n",
       {"sigil.toml:3:", "must be \"polling\" or \"webhook\", not \"push\""}},
      {"[channels.telegram]\ntoken = \"1:a\"\nedit_interval_ms = 10\n",
       {"edit_interval_ms must be between 200 and 60000"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nallowed_users = [\"alice\"]\n",
       {"[channels.telegram] allowed_users must be an array of Telegram user ids"}},
      {"[channels.telegram]\ntoken = \"1:a\"\napi_url = \"api.telegram.org\"\n",
       {"api_url must start with http:// or https://"}},
      {"[channels.telegram]\ntoken = \"1:a\"\npoll_timeout = 90\n",
       {"poll_timeout must be between 0 and 50"}},
      {"[channels.telegram]\ntoken = \"1:a\"\nwebhook = \"x\"\n",
       {"[channels.telegram] unknown key \"webhook\""}},
      {"[channels.teams]\ntoken = \"x\"\n",
       {"unknown channel [channels.teams] (known: telegram, discord, slack"}},
  });
}

TEST(TelegramConfig, ABadTokenIsRefusedWithoutShowingIt) {
  const std::string secret = "123:abc/def?x";
  std::string e = error_of("[channels.telegram]\ntoken = \"" + secret + "\"\n");
  EXPECT_NE(e.find("token is not a bot token"), std::string::npos) << e;
  EXPECT_EQ(e.find(secret), std::string::npos) << e;
  e = error_of("[channels.telegram]\n", env_of({{"SIGIL_TELEGRAM_TOKEN", secret}}));
  EXPECT_NE(e.find("SIGIL_TELEGRAM_TOKEN is not a bot token"), std::string::npos) << e;
  EXPECT_EQ(e.find(secret), std::string::npos) << e;
}

TEST(TelegramConfig, DescribeNeverShowsTheToken) {
  const Config c = load_config_text("[channels.telegram]\ntoken = \"" + std::string(kToken) + "\"\n",
                                    "s.toml", {}, env_of({}));
  const std::string d = c.describe();
  EXPECT_NE(d.find("channels.telegram: token (set)"), std::string::npos) << d;
  EXPECT_EQ(d.find("AAHfake"), std::string::npos) << d;
}

TEST(TelegramConfig, TokenShape) {
  EXPECT_TRUE(valid_telegram_token(kToken));
  EXPECT_TRUE(valid_telegram_token("1:a-b_C"));
  EXPECT_FALSE(valid_telegram_token(""));
  EXPECT_FALSE(valid_telegram_token(":abc"));
  EXPECT_FALSE(valid_telegram_token("12:"));
  EXPECT_FALSE(valid_telegram_token("12abc"));
  EXPECT_FALSE(valid_telegram_token("1x:abc"));
  EXPECT_FALSE(valid_telegram_token("1:a/b"));
  EXPECT_FALSE(valid_telegram_token("1:a b"));
}

}  // namespace
}  // namespace sigil::app
