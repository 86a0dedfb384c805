// [channels.signal] in sigil.toml (docs/configuration.md, docs/channels/signal.md).
#include <gtest/gtest.h>

#include <string>

#include "app/config.h"
#include "app/config_test_support.h"

namespace sigil::app {
namespace {

using testing::env_of;
using testing::expect_errors;

constexpr const char* kGroup = "UVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVE=";

TEST(SignalConfig, OffWithoutTheSection) {
  EXPECT_FALSE(load_config_text("", "s.toml", {}, env_of({})).channels.signal.enabled);
}

TEST(SignalConfig, ReadsEveryKeyWithDefaults) {
  const Config d =
      load_config_text("[channels.signal]\naccount = \"+15550100001\"\n", "s.toml", {}, env_of({}));
  EXPECT_TRUE(d.channels.signal.enabled);
  EXPECT_EQ(d.channels.signal.rpc_url, "http://127.0.0.1:8080");
  EXPECT_EQ(d.channels.signal.account, "+15550100001");
  EXPECT_TRUE(d.channels.signal.allowed_users.empty());
  EXPECT_TRUE(d.channels.signal.allowed_groups.empty());
  EXPECT_EQ(d.channels.signal.request_timeout_seconds, 60);
  EXPECT_EQ(d.channels.signal.silence_seconds, 40);
  EXPECT_EQ(d.channels.signal.max_download_bytes, 25u << 20);
  const Config c = load_config_text(
      "[channels.signal]\nrpc_url = \"http://127.0.0.1:9090/\"\naccount = \"+15550100001\"\n"
      "allowed_users = [\"+15550100002\", \"a11ce000-0000-4000-8000-000000000002\"]\n"
      "allowed_groups = [\"" +
          std::string(kGroup) + "\"]\nrequest_timeout = 5\nsilence_seconds = 30\nmax_download_mb = 3\n",
      "s.toml", {}, env_of({}));
  EXPECT_EQ(c.channels.signal.rpc_url, "http://127.0.0.1:9090");
  EXPECT_EQ(c.channels.signal.allowed_users,
            (std::vector<std::string>{"+15550100002", "a11ce000-0000-4000-8000-000000000002"}));
  EXPECT_EQ(c.channels.signal.allowed_groups, std::vector<std::string>{kGroup});
  EXPECT_EQ(c.channels.signal.request_timeout_seconds, 5);
  EXPECT_EQ(c.channels.signal.silence_seconds, 30);
  EXPECT_EQ(c.channels.signal.max_download_bytes, 3u << 20);
  EXPECT_NE(c.describe().find("channels.signal: rpc_url http://127.0.0.1:9090, account +15550100001"),
            std::string::npos)
      << c.describe();
}

TEST(SignalConfig, ClearErrors) {
  expect_errors({
      {"[channels.signal]\n", {"[channels.signal] needs account"}},
      {"[channels.signal]\naccount = \"15550100001\"\n", {"must be the bot's number in E.164"}},
      {"[channels.signal]\naccount = \"a11ce000-0000-4000-8000-000000000002\"\n", {"E.164"}},
      {"[channels.signal]\naccount = \"+15550100001\"\nrpc_url = \"127.0.0.1:8080\"\n",
       {"must start with http:// or https://"}},
      {"[channels.signal]\naccount = \"+15550100001\"\nallowed_users = [\"alice\"]\n", {"E.164 or ACIs"}},
      {"[channels.signal]\naccount = \"+15550100001\"\nallowed_groups = [\"abc\"]\n", {"Signal group ids"}},
      {"[channels.signal]\naccount = \"+15550100001\"\nsilence_seconds = 5\n", {"silence_seconds"}},
      {"[channels.signal]\naccount = \"+15550100001\"\nphone = \"x\"\n",
       {"[channels.signal] unknown key \"phone\""}},
      {"[channels.teams]\n", {"known: telegram, discord, slack, matrix, signal"}},
  });
}

}  // namespace
}  // namespace sigil::app
