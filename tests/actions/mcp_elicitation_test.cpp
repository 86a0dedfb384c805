// How sigil answers an MCP server's elicitation/create: the policies on their own, then through the client
// against tests/support/mcp_test_server.py over stdio (the server's `ask` tool elicits and returns what it
// got back).
#include "sigil/actions/mcp_elicitation.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "sigil/actions/mcp_client.h"
#include "sigil/actions/mcp_stdio.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

json::object form(std::string_view schema) {
  return {{"message", "Who are you?"}, {"requestedSchema", json::parse(schema)}};
}

// The defaults the conformance suite's SEP-1034 scenario asks for: every kind of field.
constexpr std::string_view kAllKinds = R"({"type": "object", "properties": {
  "name": {"type": "string", "default": "John Doe"},
  "age": {"type": "integer", "default": 30},
  "score": {"type": "number", "default": 95.5},
  "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
  "verified": {"type": "boolean", "default": true},
  "tags": {"type": "array", "items": {"anyOf": [{"const": "a"}, {"const": "b"}]}, "default": ["b"]},
  "nickname": {"type": "string"}}, "required": []})";

TEST(McpElicitation, DeclineIsTheDefaultPolicyAndSaysSo) {
  auto a = answer_mcp_elicitation(form(kAllKinds), McpElicitationPolicy{});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->result, json::parse(R"({"action": "decline"})"));
  EXPECT_NE(a->note.find("\"Who are you?\""), std::string::npos) << a->note;
  EXPECT_NE(a->note.find("declined"), std::string::npos) << a->note;
}

TEST(McpElicitation, CancelPolicy) {
  auto a = answer_mcp_elicitation(form(kAllKinds), McpElicitationPolicy::cancel);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->result, json::parse(R"({"action": "cancel"})"));
}

TEST(McpElicitation, DefaultsPolicyAcceptsWithEveryDefaultAndNothingElse) {
  auto a = answer_mcp_elicitation(form(kAllKinds), McpElicitationPolicy::defaults);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->result, json::parse(R"({"action": "accept", "content": {"name": "John Doe", "age": 30,
      "score": 95.5, "status": "active", "verified": true, "tags": ["b"]}})"));
  EXPECT_NE(a->note.find("accepted"), std::string::npos) << a->note;
}

TEST(McpElicitation, ARequiredFieldWithoutDefaultIsDeclinedNamingIt) {
  auto a = answer_mcp_elicitation(
      form(R"({"type": "object", "properties": {"name": {"type": "string", "default": "x"},
               "email": {"type": "string", "format": "email"}}, "required": ["name", "email"]})"),
      McpElicitationPolicy::defaults);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->result, json::parse(R"({"action": "decline"})"));
  EXPECT_NE(a->note.find("\"email\" has no default"), std::string::npos) << a->note;
}

TEST(McpElicitation, ADefaultThatBreaksItsFieldIsNotSent) {
  for (std::string_view field :
       {R"({"type": "integer", "default": 1.5})", R"({"type": "string", "enum": ["a", "b"], "default": "c"})",
        R"({"type": "string", "oneOf": [{"const": "a"}], "default": "c"})",
        R"({"type": "string", "maxLength": 2, "default": "long"})",
        R"({"type": "number", "minimum": 0, "default": -1})",
        R"({"type": "array", "items": {"anyOf": [{"const": "a"}]}, "default": ["z"]})"}) {
    const std::string schema =
        std::string(R"({"type": "object", "properties": {"f": )") + std::string(field) + "}}";
    auto a = answer_mcp_elicitation(form(schema), McpElicitationPolicy::defaults);
    ASSERT_TRUE(a) << field;
    EXPECT_EQ(a->result, json::parse(R"({"action": "decline"})")) << field;
    EXPECT_NE(a->note.find("the default of f"), std::string::npos) << a->note;
  }
}

TEST(McpElicitation, UrlModeAndAMissingSchemaAreRefused) {
  auto url = answer_mcp_elicitation(
      {{"mode", "url"}, {"message", "Sign in"}, {"url", "https://example.com"}, {"elicitationId", "1"}},
      McpElicitationPolicy::defaults);
  ASSERT_FALSE(url);
  EXPECT_NE(url.error().find("URL mode"), std::string::npos) << url.error();
  EXPECT_FALSE(answer_mcp_elicitation({{"message", "x"}}, McpElicitationPolicy::decline));
}

TEST(McpElicitation, PolicyNames) {
  EXPECT_EQ(parse_mcp_elicitation_policy("defaults"), McpElicitationPolicy::defaults);
  EXPECT_EQ(parse_mcp_elicitation_policy("cancel"), McpElicitationPolicy::cancel);
  EXPECT_EQ(parse_mcp_elicitation_policy("decline"), McpElicitationPolicy::decline);
  EXPECT_FALSE(parse_mcp_elicitation_policy("accept"));
  EXPECT_EQ(to_string(McpElicitationPolicy::defaults), "defaults");
}

std::unique_ptr<McpClient> stdio_client(McpElicitationPolicy policy) {
  McpStdioOptions stdio;
  stdio.program = "python3";
  stdio.args = {std::string(SIGIL_SOURCE_DIR) + "/tests/support/mcp_test_server.py"};
  McpClientOptions options;
  options.timeout = 10s;
  options.elicitation = policy;
  return std::make_unique<McpClient>("t", make_mcp_stdio_transport(stdio), options);
}

TEST(McpElicitationClient, TheServerGetsTheDefaultsAndTheCallCarriesTheNote) {
  auto c = stdio_client(McpElicitationPolicy::defaults);
  ASSERT_TRUE(c->connect());
  auto r = c->call_tool("ask", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(json::parse(r->text), json::parse(R"({"action": "accept", "content": {"name": "Ann", "age": 7,
      "color": "blue"}})"));
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("\"Who are you?\""), std::string::npos) << r->notes[0];

  auto missing = c->call_tool("ask", {{"kind", "no-default"}});
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_EQ(json::parse(missing->text), json::parse(R"({"action": "decline"})"));
  ASSERT_EQ(missing->notes.size(), 1u);
  EXPECT_NE(missing->notes[0].find("\"note\" has no default"), std::string::npos) << missing->notes[0];
}

TEST(McpElicitationClient, DeclineByDefaultAndUrlModeIsAnInvalidParamsError) {
  auto c = stdio_client(McpElicitationPolicy::decline);
  ASSERT_TRUE(c->connect());
  auto r = c->call_tool("ask", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(json::parse(r->text), json::parse(R"({"action": "decline"})"));

  auto url = c->call_tool("ask", {{"kind", "url"}});
  ASSERT_TRUE(url) << url.error().message;
  const json::value got = json::parse(url->text);
  EXPECT_EQ(got.at("code"), -32602) << url->text;
  ASSERT_EQ(url->notes.size(), 1u);
  EXPECT_NE(url->notes[0].find("URL mode"), std::string::npos) << url->notes[0];
}

}  // namespace
}  // namespace sigil::actions
