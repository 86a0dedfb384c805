// [channels.discord] in sigil.toml (docs/configuration.md, docs/channels/discord.md).
#include <gtest/gtest.h>

#include <string>

#include "app/config.h"
#include "app/config_test_support.h"

namespace sigil::app {
namespace {

using testing::env_of;
using testing::expect_errors;

constexpr std::string_view kToken = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.GfAkEt.sigil-test-token-not-a-secret";

TEST(DiscordConfig, OffWithoutTheSection) {
  const Config c = load_config_text("", "s.toml", {}, env_of({{"SIGIL_DISCORD_TOKEN", std::string(kToken)}}));
  EXPECT_FALSE(c.channels.discord.enabled);
}

TEST(DiscordConfig, ReadsEveryKeyWithDefaults) {
  const Config d = load_config_text("[channels.discord]\ntoken = \"" + std::string(kToken) + "\"\n", "s.toml",
                                    {}, env_of({}));
  EXPECT_TRUE(d.channels.discord.enabled);
  EXPECT_EQ(d.channels.discord.token, kToken);
  EXPECT_EQ(d.channels.discord.api_url, "https://discord.com/api/v10");
  EXPECT_TRUE(d.channels.discord.allowed_users.empty());
  EXPECT_EQ(d.channels.discord.request_timeout_seconds, 30);
  EXPECT_EQ(d.channels.discord.max_download_bytes, 25u << 20);
  const Config c = load_config_text(
      "[channels.discord]\ntoken = \"t\"\napi_url = \"http://127.0.0.1:9/api/v10/\"\n"
      "allowed_users = [\"80351110224678912\"]\nrequest_timeout = 5\nmax_download_mb = 3\n",
      "s.toml", {}, env_of({{"SIGIL_DISCORD_TOKEN", std::string(kToken)}}));
  EXPECT_EQ(c.channels.discord.token, kToken);  // the environment wins
  EXPECT_EQ(c.channels.discord.api_url, "http://127.0.0.1:9/api/v10");
  EXPECT_EQ(c.channels.discord.allowed_users, std::vector<std::string>{"80351110224678912"});
  EXPECT_EQ(c.channels.discord.request_timeout_seconds, 5);
  EXPECT_EQ(c.channels.discord.max_download_bytes, 3u << 20);
}

TEST(DiscordConfig, ClearErrors) {
  expect_errors({
      {"[channels.discord]\n", {"[channels.discord] needs the bot's token"}},
      {"[channels.discord]\ntoken = \"t\"\nallowed_users = [80351110224678912]\n", {"snowflakes as strings"}},
      {"[channels.discord]\ntoken = \"t\"\nallowed_users = [\"alice\"]\n", {"snowflakes as strings"}},
      {"[channels.discord]\ntoken = \"t\"\napi_url = \"discord.com/api\"\n",
       {"must start with http:// or https://"}},
      {"[channels.discord]\ntoken = \"t\"\nintents = 3\n", {"[channels.discord] unknown key \"intents\""}},
  });
}

TEST(DiscordConfig, DescribeNeverShowsTheToken) {
  const Config c = load_config_text("[channels.discord]\ntoken = \"" + std::string(kToken) + "\"\n", "s.toml",
                                    {}, env_of({}));
  const std::string text = c.describe();
  EXPECT_NE(text.find("channels.discord: token (set)"), std::string::npos) << text;
  EXPECT_EQ(text.find(kToken), std::string::npos);
}

}  // namespace
}  // namespace sigil::app
