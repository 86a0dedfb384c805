// [channels.matrix] in sigil.toml (docs/configuration.md, docs/channels/matrix.md).
#include <gtest/gtest.h>

#include <string>

#include "app/config.h"
#include "app/config_test_support.h"

namespace sigil::app {
namespace {

using testing::env_of;
using testing::expect_errors;

constexpr std::string_view kToken = "syt_c2lnaWw_sigilFakeAccessTokenNotASecret_0AbCdE";

std::string section() {
  return "[channels.matrix]\nhomeserver_url = \"https://matrix.example.org/\"\naccess_token = \"" +
         std::string(kToken) + "\"\n";
}

TEST(MatrixConfig, OffWithoutTheSection) {
  const Config c =
      load_config_text("", "s.toml", {}, env_of({{"SIGIL_MATRIX_ACCESS_TOKEN", std::string(kToken)}}));
  EXPECT_FALSE(c.channels.matrix.enabled);
}

TEST(MatrixConfig, ReadsEveryKeyWithDefaults) {
  const Config d = load_config_text(section(), "s.toml", {}, env_of({}));
  EXPECT_TRUE(d.channels.matrix.enabled);
  EXPECT_EQ(d.channels.matrix.homeserver_url, "https://matrix.example.org");
  EXPECT_EQ(d.channels.matrix.access_token, kToken);
  EXPECT_EQ(d.channels.matrix.user_id, "");
  EXPECT_TRUE(d.channels.matrix.allowed_users.empty());
  EXPECT_EQ(d.channels.matrix.request_timeout_seconds, 30);
  EXPECT_EQ(d.channels.matrix.max_download_bytes, 25u << 20);
  const Config c = load_config_text(
      "[channels.matrix]\nhomeserver_url = \"http://127.0.0.1:9\"\naccess_token = \"syt_file\"\n"
      "user_id = \"@sigil:example.org\"\nallowed_users = [\"@alice:example.org\", \"@bob:other.net\"]\n"
      "request_timeout = 5\nmax_download_mb = 3\n",
      "s.toml", {}, env_of({{"SIGIL_MATRIX_ACCESS_TOKEN", std::string(kToken)}}));
  EXPECT_EQ(c.channels.matrix.access_token, kToken);  // the environment wins
  EXPECT_EQ(c.channels.matrix.homeserver_url, "http://127.0.0.1:9");
  EXPECT_EQ(c.channels.matrix.user_id, "@sigil:example.org");
  EXPECT_EQ(c.channels.matrix.allowed_users,
            (std::vector<std::string>{"@alice:example.org", "@bob:other.net"}));
  EXPECT_EQ(c.channels.matrix.request_timeout_seconds, 5);
  EXPECT_EQ(c.channels.matrix.max_download_bytes, 3u << 20);
}

TEST(MatrixConfig, ClearErrors) {
  expect_errors({
      {"[channels.matrix]\naccess_token = \"x\"\n", {"[channels.matrix] needs homeserver_url"}},
      {"[channels.matrix]\nhomeserver_url = \"https://m.example.org\"\n",
       {"[channels.matrix] needs the bot account's access token"}},
      {"[channels.matrix]\nhomeserver_url = \"matrix.example.org\"\naccess_token = \"x\"\n",
       {"homeserver_url"}},
      {"[channels.matrix]\nhomeserver_url = \"https://m.example.org\"\naccess_token = \"x\"\n"
       "user_id = \"sigil\"\n",
       {"must be a Matrix user id"}},
      {"[channels.matrix]\nhomeserver_url = \"https://m.example.org\"\naccess_token = \"x\"\n"
       "allowed_users = [\"alice\"]\n",
       {"Matrix user ids"}},
      {"[channels.matrix]\nhomeserver_url = \"https://m.example.org\"\naccess_token = \"x\"\npassword = "
       "\"p\"\n",
       {"[channels.matrix] unknown key \"password\""}},
  });
}

TEST(MatrixConfig, DescribeNeverShowsTheToken) {
  const Config c = load_config_text(section(), "s.toml", {}, env_of({}));
  const std::string text = c.describe();
  EXPECT_NE(text.find("channels.matrix: homeserver_url https://matrix.example.org, access_token (set)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(kToken), std::string::npos);
}

}  // namespace
}  // namespace sigil::app
