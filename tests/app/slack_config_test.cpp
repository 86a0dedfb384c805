// [channels.slack] in sigil.toml (docs/configuration.md, docs/channels/slack.md).
#include <gtest/gtest.h>

#include <string>

#include "app/config.h"
#include "app/config_test_support.h"
#include "sigil/channels/slack/web_api.h"

namespace sigil::app {
namespace {

using testing::env_of;
using testing::expect_errors;

constexpr std::string_view kBot = "xoxb-1000000001-2000000002-sigilFakeBotTokenNotASecret";
constexpr std::string_view kApp = "xapp-1-A0SIGIL0001-3000000003-sigilfakeapptokennotasecret";

std::string section() {
  return "[channels.slack]\nbot_token = \"" + std::string(kBot) + "\"\napp_token = \"" + std::string(kApp) +
         "\"\n";
}

TEST(SlackConfig, OffWithoutTheSection) {
  const Config c = load_config_text("", "s.toml", {}, env_of({{"SIGIL_SLACK_BOT_TOKEN", std::string(kBot)}}));
  EXPECT_FALSE(c.channels.slack.enabled);
}

TEST(SlackConfig, ReadsEveryKeyWithDefaults) {
  const Config d = load_config_text(section(), "s.toml", {}, env_of({}));
  EXPECT_TRUE(d.channels.slack.enabled);
  EXPECT_EQ(d.channels.slack.bot_token, kBot);
  EXPECT_EQ(d.channels.slack.app_token, kApp);
  EXPECT_EQ(d.channels.slack.api_url, "https://slack.com/api");
  EXPECT_TRUE(d.channels.slack.allowed_users.empty());
  EXPECT_EQ(d.channels.slack.request_timeout_seconds, 30);
  EXPECT_EQ(d.channels.slack.max_download_bytes, 25u << 20);
  const Config c = load_config_text(
      "[channels.slack]\nbot_token = \"xoxb-file\"\napi_url = \"http://127.0.0.1:9/api/\"\n"
      "allowed_users = [\"U012AB3CD\"]\nrequest_timeout = 5\nmax_download_mb = 3\n",
      "s.toml", {},
      env_of({{"SIGIL_SLACK_BOT_TOKEN", std::string(kBot)}, {"SIGIL_SLACK_APP_TOKEN", std::string(kApp)}}));
  EXPECT_EQ(c.channels.slack.bot_token, kBot);  // the environment wins
  EXPECT_EQ(c.channels.slack.app_token, kApp);
  EXPECT_EQ(c.channels.slack.api_url, "http://127.0.0.1:9/api");
  EXPECT_EQ(c.channels.slack.allowed_users, std::vector<std::string>{"U012AB3CD"});
  EXPECT_EQ(c.channels.slack.request_timeout_seconds, 5);
  EXPECT_EQ(c.channels.slack.max_download_bytes, 3u << 20);
}

TEST(SlackConfig, ClearErrors) {
  expect_errors({
      {"[channels.slack]\n", {"[channels.slack] needs the bot token (xoxb-"}},
      {"[channels.slack]\nbot_token = \"xoxb-1\"\n", {"needs the app-level token (xapp-"}},
      {"[channels.slack]\nbot_token = \"xapp-1\"\n", {"must be a Slack token starting xoxb-"}},
      {"[channels.slack]\nbot_token = \"xoxb-1\"\napp_token = \"xoxb-2\"\n",
       {"must be a Slack token starting xapp-"}},
      {"[channels.slack]\nbot_token = \"xoxb-1\"\napp_token = \"xapp-2\"\nallowed_users = [\"alice\"]\n",
       {"Slack member ids"}},
      {"[channels.slack]\nbot_token = \"xoxb-1\"\napp_token = \"xapp-2\"\nsigning_secret = \"s\"\n",
       {"[channels.slack] unknown key \"signing_secret\""}},
      {"[channels.teams]\n", {"known: telegram, discord, slack"}},
  });
}

TEST(SlackConfig, DescribeNeverShowsATokenAndTheAccountIsNotTheSecret) {
  const Config c = load_config_text(section(), "s.toml", {}, env_of({}));
  const std::string text = c.describe();
  EXPECT_NE(text.find("channels.slack: bot_token (set), app_token (set)"), std::string::npos) << text;
  EXPECT_EQ(text.find(kBot), std::string::npos);
  EXPECT_EQ(text.find(kApp), std::string::npos);
  EXPECT_EQ(channels::slack::bot_account(kBot), "1000000001-2000000002");
  EXPECT_EQ(channels::slack::bot_account("xoxb-oddly-shaped"), "unknown");
}

}  // namespace
}  // namespace sigil::app
