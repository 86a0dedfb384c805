// Query strings and the checks of ids, tokens and content types.
#include "server/request_checks.h"

#include <gtest/gtest.h>

#include <string>

#include "server/query_string.h"

namespace sigil::server {
namespace {

TEST(QueryStringTest, Params) {
  const auto q = query_params("/v1/ws?conversation=c%201&user=a+b&&flag&=x&user=last");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->at("conversation"), "c 1");
  EXPECT_EQ(q->at("user"), "last");  // the last one wins
  EXPECT_EQ(q->at("flag"), "");
  EXPECT_EQ(q->at(""), "x");
  EXPECT_EQ(q->size(), 4u);
  EXPECT_TRUE(query_params("/healthz")->empty());
  EXPECT_TRUE(query_params("/healthz?")->empty());
  EXPECT_EQ(query_params("/x?a=1?b=2")->at("a"), "1?b=2");  // only the first '?' starts the query
  EXPECT_FALSE(query_params("/x?a=%2").has_value());
  EXPECT_FALSE(query_params("/x?%zz=1").has_value());
}

TEST(RequestChecksTest, ConversationIds) {
  EXPECT_TRUE(valid_conversation_id("web"));
  EXPECT_TRUE(valid_conversation_id("A-z_0.9"));
  EXPECT_TRUE(valid_conversation_id(std::string(128, 'x')));
  EXPECT_FALSE(valid_conversation_id(std::string(129, 'x')));
  EXPECT_FALSE(valid_conversation_id(""));
  for (const char* bad : {"a/b", "a b", "a%20", "caf\xC3\xA9", "a\n", "..?"})
    EXPECT_FALSE(valid_conversation_id(bad)) << bad;
}

TEST(RequestChecksTest, SecretsAndBearerTokens) {
  EXPECT_TRUE(same_secret("", ""));
  EXPECT_TRUE(same_secret("s3cret", "s3cret"));
  EXPECT_FALSE(same_secret("s3cret", "s3creT"));
  EXPECT_FALSE(same_secret("s3cret", "s3cre"));
  EXPECT_TRUE(bearer_authorized("", ""));  // no token configured: no auth
  EXPECT_TRUE(bearer_authorized("anything", ""));
  EXPECT_TRUE(bearer_authorized("Bearer tok", "tok"));
  for (const char* refused : {"", "bearer tok", "Bearer  tok", "Basic tok", "Bearer tok2"})
    EXPECT_FALSE(bearer_authorized(refused, "tok")) << refused;
}

TEST(RequestChecksTest, JsonContentType) {
  for (const char* ok : {"application/json", "Application/JSON", "application/json; charset=utf-8",
                         " application/json\t;charset=UTF-8", "application/json;"})
    EXPECT_TRUE(is_json_content_type(ok)) << ok;
  for (const char* no : {"", "text/plain", "application/jsonx", "application/json-seq", "application/x-json",
                         "multipart/form-data", "application/ json"})
    EXPECT_FALSE(is_json_content_type(no)) << no;
}

}  // namespace
}  // namespace sigil::server
