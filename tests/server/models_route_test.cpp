// GET /v1/models and /v1/models/{id} (server/models_route.h): OpenAI's shapes, one model, 404 otherwise.
#include "server/models_route.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace sigil::server {
namespace {

namespace json = boost::json;

TEST(ModelsRouteTest, TheListHoldsTheGatewaysModel) {
  const PlainResponse r = models_response("sigil", "", 1'700'000'000);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  const json::value v = json::parse(r.body);
  EXPECT_EQ(v.at("object").as_string(), "list");
  const json::array& data = v.at("data").as_array();
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0].at("id").as_string(), "sigil");
  EXPECT_EQ(data[0].at("object").as_string(), "model");
  EXPECT_EQ(data[0].at("created").as_int64(), 1'700'000'000);
  EXPECT_EQ(data[0].at("owned_by").as_string(), "sigil");
}

TEST(ModelsRouteTest, OneModelByIdAndAnUnknownOneIs404) {
  const PlainResponse ok = models_response("my agent", "my%20agent", 5);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(json::parse(ok.body).at("id").as_string(), "my agent");

  const PlainResponse missing = models_response("sigil", "gpt-4o", 5);
  EXPECT_EQ(missing.status, 404);
  const json::value e = json::parse(missing.body).at("error");
  EXPECT_EQ(e.at("code").as_string(), "model_not_found");
  EXPECT_EQ(e.at("type").as_string(), "invalid_request_error");
  EXPECT_NE(e.at("message").as_string().find("gpt-4o"), json::string::npos);
}

}  // namespace
}  // namespace sigil::server
