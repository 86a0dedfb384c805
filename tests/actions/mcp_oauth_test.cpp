// sigil's OAuth client for MCP servers (mcp_oauth.h) against tests/support/mcp_oauth_test_server.py, a tiny
// MCP server with its own authorization server: client credentials, the authorization code flow with PKCE
// and dynamic registration, a refresh, cross-app access, a refused resource and a login page sigil cannot get
// past.
#include "sigil/actions/mcp_oauth.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sigil/actions/mcp_http.h"
#include "sigil/net/blocking_fetch.h"
#include "sigil/net/io_threads.h"
#include "support/python_server.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// tests/support/mcp_oauth_test_server.py in one of its modes, its MCP endpoint at /mcp.
struct OAuthServer : sigil::testing::PythonServer {
  explicit OAuthServer(std::string mode) : PythonServer("mcp_oauth_test_server.py", {std::move(mode)}) {}
  std::string url() const { return base() + "/mcp"; }
};

// A form body's value.
std::string form_value(const json::object& request, const std::string& name) {
  const std::string body(request.at("body").as_string());
  const std::string key = name + "=";
  for (std::size_t at = 0; at <= body.size();) {
    const std::size_t amp = std::min(body.find('&', at), body.size());
    if (body.compare(at, key.size(), key) == 0) return body.substr(at + key.size(), amp - at - key.size());
    at = amp + 1;
  }
  return "";
}

struct Fixture {
  std::shared_ptr<net::HttpClient> http =
      std::make_shared<net::HttpClient>(std::make_shared<net::IoThreads>(1));
  std::unique_ptr<McpClient> client;

  Fixture(const OAuthServer& server, McpOAuthConfig config) {
    auto oauth = std::make_shared<McpOAuth>(server.url(), std::move(config), http);
    client = std::make_unique<McpClient>(
        "t", make_mcp_http_transport({server.url(), {}, std::move(oauth)}, http), McpClientOptions{20s});
  }
  void expire(const OAuthServer& server) {
    net::BlockingFetches fetches;
    net::HttpRequest request;
    request.method = "POST";
    request.url = server.base() + "/expire";
    ASSERT_EQ(fetches.fetch(*http, std::move(request), 1024).head.status, 200);
  }
};

TEST(McpOAuth, ReadsTheBearerChallengesParameters) {
  const std::string c =
      R"(Bearer realm="x", error=insufficient_scope, scope="a b", resource_metadata="http://h/p\"q")";
  EXPECT_EQ(bearer_challenge_param(c, "scope"), "a b");
  EXPECT_EQ(bearer_challenge_param(c, "error"), "insufficient_scope");
  EXPECT_EQ(bearer_challenge_param(c, "RESOURCE_METADATA"), "http://h/p\"q");
  EXPECT_EQ(bearer_challenge_param(c, "missing"), "");
  EXPECT_EQ(bearer_challenge_param(R"(Basic realm="x", scope="a")", "scope"), "");
}

TEST(McpOAuth, ClientCredentialsGetATokenThatIsUsedAndFetchedAgainWhenRefused) {
  OAuthServer server("credentials");
  McpOAuthConfig config;
  config.client_id = "cid";
  config.client_secret = "sec";
  Fixture s(server, config);
  ASSERT_TRUE(s.client->connect());
  auto r = s.client->call_tool("who", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "authorized");
  auto tokens = server.requests("/as/token");
  ASSERT_EQ(tokens.size(), 1u);
  // client_secret_post, the only method the server lists; the resource the token is for (RFC 8707).
  EXPECT_EQ(form_value(tokens[0], "grant_type"), "client_credentials");
  EXPECT_EQ(form_value(tokens[0], "client_secret"), "sec");
  EXPECT_FALSE(tokens[0].at("headers").as_object().contains("Authorization"));
  EXPECT_TRUE(server.requests("/.well-known/oauth-protected-resource/mcp").size() >= 1);
  for (const auto& post : server.requests("/mcp")) {
    const bool call = post.at("method").as_string() == "POST" &&
                      post.at("body").as_string().find("tools/call") != std::string::npos;
    if (call) {
      EXPECT_EQ(post.at("headers").as_object().at("Authorization").as_string(), "Bearer token-1");
    }
  }

  s.expire(server);
  r = s.client->call_tool("who", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "authorized");
  EXPECT_EQ(server.requests("/as/token").size(), 2u);
}

TEST(McpOAuth, TheCodeFlowRegistersUsesPkceS256AndRefreshes) {
  OAuthServer server("code");
  Fixture s(server, McpOAuthConfig{});
  auto connected = s.client->connect();
  ASSERT_TRUE(connected) << connected.error().message;
  ASSERT_EQ(server.requests("/as/register").size(), 1u);
  const auto authorize = server.requests("/as/authorize");
  ASSERT_EQ(authorize.size(), 1u);
  const json::object& q = authorize[0].at("query").as_object();
  EXPECT_EQ(q.at("client_id").as_string(), "registered-client");
  EXPECT_EQ(q.at("code_challenge_method").as_string(), "S256");
  EXPECT_EQ(q.at("resource").as_string(), server.url());
  EXPECT_GE(q.at("state").as_string().size(), 16u);
  auto tokens = server.requests("/as/token");
  ASSERT_EQ(tokens.size(), 1u);  // the server checked the verifier against the challenge
  EXPECT_EQ(form_value(tokens[0], "grant_type"), "authorization_code");

  s.expire(server);
  auto r = s.client->call_tool("who", {});
  ASSERT_TRUE(r) << r.error().message;
  tokens = server.requests("/as/token");
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(form_value(tokens[1], "grant_type"), "refresh_token");
  EXPECT_EQ(server.requests("/as/authorize").size(), 1u);  // no second authorization
}

TEST(McpOAuth, CrossAppAccessExchangesTheIdTokenThenUsesTheJwtBearerGrant) {
  OAuthServer server("xaa");
  McpOAuthConfig config;
  config.client_id = "cid";
  config.client_secret = "sec";
  config.idp_id_token = "the-id-token";
  config.idp_token_endpoint = server.base() + "/idp/token";
  config.idp_client_id = "idp-client";
  Fixture s(server, config);
  auto connected = s.client->connect();
  ASSERT_TRUE(connected) << connected.error().message;
  ASSERT_EQ(server.requests("/idp/token").size(), 1u);
  const auto tokens = server.requests("/as/token");
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(form_value(tokens[0], "assertion"), "the-jag");
}

TEST(McpOAuth, AResourceThatIsNotTheServerIsRefused) {
  OAuthServer server("mismatch");
  Fixture s(server, McpOAuthConfig{});
  auto r = s.client->connect();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("names the resource \"https://elsewhere.example/mcp\""), std::string::npos)
      << r.error().message;
  EXPECT_TRUE(server.requests("/.well-known/oauth-authorization-server/as").empty());
  EXPECT_TRUE(server.requests("/as/authorize").empty());
}

TEST(McpOAuth, AnAuthorizationServerOnAPrivateAddressIsRefusedUnlessAllowed) {
  OAuthServer server("private-as");
  const std::string as = "http://127.0.0.2:" + server.base().substr(server.base().rfind(':') + 1) + "/as";
  {
    Fixture s(server, McpOAuthConfig{});
    auto r = s.client->connect();
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("refused the authorization server " + as + ": 127.0.0.2"),
              std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("loopback"), std::string::npos) << r.error().message;
  }
  // Allowed, the flow goes there (and finds nothing listening): the guard, not the address, stopped it.
  McpOAuthConfig allowed;
  allowed.allow_private = {"127.0.0.2"};
  Fixture s(server, std::move(allowed));
  auto r = s.client->connect();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.find("refused the authorization server"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find(
                "no authorization server metadata at " +
                std::string(as).insert(as.size() - 3, "/.well-known/oauth-authorization-server")),
            std::string::npos)
      << r.error().message;
}

TEST(McpOAuth, ALoginPageIsAClearErrorNamingTheEndpoint) {
  OAuthServer server("login");
  Fixture s(server, McpOAuthConfig{});
  auto r = s.client->connect();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("wants a person to sign in at " + server.base() + "/as/authorize"),
            std::string::npos)
      << r.error().message;
  EXPECT_TRUE(server.requests("/as/token").empty());
}

}  // namespace
}  // namespace sigil::actions
