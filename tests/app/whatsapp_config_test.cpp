// [channels.whatsapp] in sigil.toml (docs/configuration.md, docs/channels/whatsapp.md).
#include <gtest/gtest.h>

#include <string>

#include "app/config.h"
#include "app/config_test_support.h"

namespace sigil::app {
namespace {

using testing::env_of;
using testing::expect_errors;

constexpr std::string_view kToken = "EAAGsigilFakeSystemUserTokenNotASecret0000000000";
constexpr std::string_view kSecret = "sigil-fake-app-secret-not-a-secret";

std::string section() {
  return "[channels.whatsapp]\nphone_number_id = \"106540352242922\"\naccess_token = \"" +
         std::string(kToken) + "\"\napp_secret = \"" + std::string(kSecret) + "\"\nverify_token = \"vt-1\"\n";
}

TEST(WhatsAppConfig, OffWithoutTheSection) {
  const Config c =
      load_config_text("", "w.toml", {}, env_of({{"SIGIL_WHATSAPP_ACCESS_TOKEN", std::string(kToken)}}));
  EXPECT_FALSE(c.channels.whatsapp.enabled);
}

TEST(WhatsAppConfig, ReadsEveryKeyWithDefaultsAndTheEnvironmentWins) {
  const Config d = load_config_text(section(), "w.toml", {}, env_of({}));
  const WhatsAppConfig& w = d.channels.whatsapp;
  EXPECT_TRUE(w.enabled);
  EXPECT_EQ(w.phone_number_id, "106540352242922");
  EXPECT_EQ(w.access_token, kToken);
  EXPECT_EQ(w.app_secret, kSecret);
  EXPECT_EQ(w.verify_token, "vt-1");
  EXPECT_EQ(w.api_url, "https://graph.facebook.com/v23.0");
  EXPECT_EQ(w.webhook_path, "/whatsapp/webhook");
  EXPECT_TRUE(w.allowed_users.empty());
  EXPECT_EQ(w.request_timeout_seconds, 30);
  EXPECT_EQ(w.max_download_bytes, 25u << 20);
  const Config c = load_config_text(
      "[channels.whatsapp]\nphone_number_id = \"1\"\napi_url = \"http://127.0.0.1:9/v23.0/\"\n"
      "webhook_path = \"/hooks/wa\"\nallowed_users = [\"+1 (650) 555-1234\"]\nrequest_timeout = 5\n"
      "max_download_mb = 3\n",
      "w.toml", {},
      env_of({{"SIGIL_WHATSAPP_ACCESS_TOKEN", "env-token"},
              {"SIGIL_WHATSAPP_APP_SECRET", "env-secret"},
              {"SIGIL_WHATSAPP_VERIFY_TOKEN", "env-verify"}}));
  const WhatsAppConfig& e = c.channels.whatsapp;
  EXPECT_EQ(e.access_token, "env-token");
  EXPECT_EQ(e.app_secret, "env-secret");
  EXPECT_EQ(e.verify_token, "env-verify");
  EXPECT_EQ(e.api_url, "http://127.0.0.1:9/v23.0");
  EXPECT_EQ(e.webhook_path, "/hooks/wa");
  EXPECT_EQ(e.allowed_users, std::vector<std::string>{"+1 (650) 555-1234"});
  EXPECT_EQ(e.request_timeout_seconds, 5);
  EXPECT_EQ(e.max_download_bytes, 3u << 20);
}

TEST(WhatsAppConfig, ClearErrors) {
  expect_errors({
      {"[channels.whatsapp]\n", {"[channels.whatsapp] needs phone_number_id, access_token"}},
      {"[channels.whatsapp]\nphone_number_id = \"1\"\naccess_token = \"t\"\nverify_token = \"v\"\n",
       {"app_secret (or SIGIL_WHATSAPP_APP_SECRET"}},
      {"[channels.whatsapp]\nphone_number_id = \"+1 650\"\n", {"must be the number's id"}},
      {"[channels.whatsapp]\nwebhook_path = \"whatsapp\"\n", {"must be a path starting with /"}},
      {"[channels.whatsapp]\nallowed_users = [\"alice\"]\n", {"array of phone numbers"}},
      {"[channels.whatsapp]\nwebhook_url = \"x\"\n", {"[channels.whatsapp] unknown key \"webhook_url\""}},
      {"[channels.signalx]\n", {"known: telegram, discord, slack, matrix, signal, whatsapp"}},
  });
}

TEST(WhatsAppConfig, DescribeNeverShowsASecret) {
  const Config c = load_config_text(section(), "w.toml", {}, env_of({}));
  const std::string text = c.describe();
  EXPECT_NE(
      text.find("channels.whatsapp: phone_number_id 106540352242922, access_token (set), app_secret (set), "
                "verify_token (set)"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find(kToken), std::string::npos);
  EXPECT_EQ(text.find(kSecret), std::string::npos);
  EXPECT_EQ(text.find("vt-1"), std::string::npos);
}

}  // namespace
}  // namespace sigil::app
