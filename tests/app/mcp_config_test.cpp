// [mcp.servers.NAME] in sigil.toml (docs/configuration.md, docs/actions/mcp.md).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/config.h"
#include "app/config_test_support.h"

namespace sigil::app {
namespace {

const EnvLookup kNoEnv = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };

std::string error_of(std::string_view toml) { return testing::config_error(toml, kNoEnv); }

TEST(McpConfig, OneTablePerServer) {
  const Config c = load_config_text(R"(
[mcp.servers.everything]
command = ["node", "server.js", "stdio"]
env = { LOG_LEVEL = "warn" }
timeout_seconds = 5
elicitation = "defaults"

[mcp.servers."brave-search"]
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer x" }
)",
                                    "s.toml", {}, kNoEnv);
  ASSERT_EQ(c.mcp_servers.size(), 2u);
  // In name order (TOML tables have no order of their own).
  const McpServerConfig& a = c.mcp_servers[1];
  EXPECT_EQ(a.name, "everything");
  EXPECT_EQ(a.command, (std::vector<std::string>{"node", "server.js", "stdio"}));
  EXPECT_EQ(a.env, (std::vector<std::pair<std::string, std::string>>{{"LOG_LEVEL", "warn"}}));
  EXPECT_EQ(a.timeout_seconds, 5);
  EXPECT_EQ(a.elicitation, "defaults");
  const McpServerConfig& b = c.mcp_servers[0];
  EXPECT_EQ(b.name, "brave-search");
  EXPECT_EQ(b.url, "https://mcp.example.com/mcp");
  EXPECT_EQ(b.headers, (std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer x"}}));
  EXPECT_EQ(b.timeout_seconds, 30);
  EXPECT_EQ(b.elicitation, "decline");  // nobody answers forms in a turn: no by default
  EXPECT_TRUE(load_config_text("", "s.toml", {}, kNoEnv).mcp_servers.empty());
}

TEST(McpConfig, MistakesAreNamed) {
  EXPECT_NE(error_of("[mcp.servers.a]\n").find("[mcp.servers.a] needs exactly one of command"),
            std::string::npos);
  EXPECT_NE(error_of("[mcp.servers.a]\ncommand = [\"x\"]\nurl = \"http://h\"\n").find("exactly one of"),
            std::string::npos);
  EXPECT_NE(
      error_of("[mcp.servers.a]\ncommand = [\"x\"]\nport = 1\n").find("[mcp.servers.a] unknown key \"port\""),
      std::string::npos);
  EXPECT_NE(error_of("[mcp.servers.\"a b\"]\ncommand = [\"x\"]\n").find("the name may hold only"),
            std::string::npos);
  EXPECT_NE(error_of("[mcp]\nservers = 1\n").find("mcp must hold only tables [mcp.servers.NAME]"),
            std::string::npos);
  EXPECT_NE(error_of("[mcp.servers.a]\ncommand = [\"x\"]\nenv = { A = 1 }\n").find("must be a string"),
            std::string::npos);
  EXPECT_NE(error_of("[mcp.servers.a]\ncommand = [\"x\"]\nelicitation = \"accept\"\n")
                .find("must be \"decline\", \"cancel\" or \"defaults\", not \"accept\""),
            std::string::npos);
}

TEST(McpConfig, OAuthTakesItsSecretFromTheEnvironment) {
  const EnvLookup env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "MCP_SECRET") return std::string("s3cret");
    return std::nullopt;
  };
  const Config c = load_config_text(R"(
[mcp.servers.a]
url = "https://mcp.example.com/mcp"
oauth = { client_id = "sigil", client_secret_env = "MCP_SECRET", scope = "mcp:read", grant = "client_credentials" }
[mcp.servers.b]
url = "https://mcp.example.com/other"
oauth = { client_id = "k", private_key_file = "keys/mcp.pem", signing_algorithm = "RS256", allow_private = ["auth.internal", "10.20.0.0/16"] }
[mcp.servers.c]
url = "https://mcp.example.com/plain"
)",
                                    "s.toml", {}, env);
  ASSERT_EQ(c.mcp_servers.size(), 3u);
  const auto& a = c.mcp_servers[0].oauth;
  EXPECT_TRUE(a.enabled);
  EXPECT_EQ(a.client_id, "sigil");
  EXPECT_EQ(a.client_secret, "s3cret");
  EXPECT_EQ(a.scope, "mcp:read");
  EXPECT_EQ(a.grant, "client_credentials");
  EXPECT_EQ(c.mcp_servers[1].oauth.grant, "auto");
  EXPECT_EQ(c.mcp_servers[1].oauth.private_key_file, "keys/mcp.pem");  // beside s.toml
  EXPECT_EQ(c.mcp_servers[1].oauth.signing_algorithm, "RS256");
  EXPECT_EQ(c.mcp_servers[1].oauth.allow_private,
            (std::vector<std::string>{"auth.internal", "10.20.0.0/16"}));
  EXPECT_TRUE(a.allow_private.empty());
  EXPECT_FALSE(c.mcp_servers[2].oauth.enabled);
  const Config empty =
      load_config_text("[mcp.servers.d]\nurl = \"https://h/mcp\"\noauth = {}\n", "s.toml", {}, env);
  EXPECT_TRUE(empty.mcp_servers[0].oauth.enabled);  // {}: dynamic registration
  EXPECT_EQ(empty.mcp_servers[0].oauth.client_id, "");
}

TEST(McpConfig, OAuthMistakesAreNamedWithoutTheSecret) {
  const std::string unset = error_of(
      "[mcp.servers.a]\nurl = \"http://h/mcp\"\noauth = { client_id = \"x\", client_secret_env = \"NOPE\" "
      "}\n");
  EXPECT_NE(unset.find("oauth.client_secret_env names NOPE, which is not set"), std::string::npos) << unset;
  EXPECT_NE(error_of("[mcp.servers.a]\ncommand = [\"x\"]\noauth = {}\n").find("oauth is for a url server"),
            std::string::npos);
  const std::string no_id =
      error_of("[mcp.servers.a]\nurl = \"http://h/mcp\"\noauth = { client_secret = \"hidden\" }\n");
  EXPECT_NE(no_id.find("has a client secret but no client_id"), std::string::npos) << no_id;
  EXPECT_EQ(no_id.find("hidden"), std::string::npos) << no_id;
  EXPECT_NE(error_of("[mcp.servers.a]\nurl = \"http://h/mcp\"\noauth = { grant = \"password\" }\n")
                .find("must be \"auto\", \"client_credentials\" or \"authorization_code\", not \"password\""),
            std::string::npos);
  const std::string bad_range =
      error_of("[mcp.servers.a]\nurl = \"http://h/mcp\"\noauth = { allow_private = [\"10.0.0.0/99\"] }\n");
  EXPECT_NE(bad_range.find("allow_private"), std::string::npos) << bad_range;
  EXPECT_NE(error_of("[mcp.servers.a]\nurl = \"http://h/mcp\"\noauth = { grant = \"client_credentials\" }\n")
                .find("needs client_secret, client_secret_env or private_key_file"),
            std::string::npos);
}

}  // namespace
}  // namespace sigil::app
