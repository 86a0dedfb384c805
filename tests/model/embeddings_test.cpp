// The OpenAI-compatible embeddings client (embeddings.h) against a real HTTP server on loopback.
#include "sigil/model/embeddings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fake_openai_server.h"

namespace sigil::model {
namespace {

using testing::FakeOpenAiServer;
using testing::FakeResponse;

FakeResponse vectors(const std::string& data) {
  FakeResponse r;
  r.body = R"({"object":"list","data":)" + data + "}";
  return r;
}

std::unique_ptr<Embeddings> client(const FakeOpenAiServer& server) {
  EmbeddingsConfig c;
  c.base_url = server.base_url();
  c.api_key = "sk-test";
  c.model = "embed-small";
  c.timeout = std::chrono::seconds(10);
  return make_openai_embeddings(c);
}

TEST(Embeddings, TextsInVectorsOutInTheirOrder) {
  FakeOpenAiServer server;
  // Out of order on the wire: the index decides.
  server.enqueue(vectors(R"([{"index":1,"embedding":[0,1,0.5]},{"index":0,"embedding":[1,0,-0.25]}])"));
  auto e = client(server);
  auto v = e->embed({"promotion plan", "green tea"});
  ASSERT_TRUE(v.ok()) << v.error();
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[0], (std::vector<float>{1, 0, -0.25f}));
  EXPECT_EQ((*v)[1], (std::vector<float>{0, 1, 0.5f}));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/v1/embeddings");
  EXPECT_EQ(requests[0].authorization, "Bearer sk-test");
  EXPECT_EQ(requests[0].json.at("model").as_string(), "embed-small");
  EXPECT_EQ(requests[0].json.at("input").as_array().size(), 2u);
  EXPECT_EQ(requests[0].json.at("input").as_array()[0].as_string(), "promotion plan");
  EXPECT_TRUE(e->available());
}

TEST(Embeddings, AServerWithoutTheEndpointIsAskedOnce) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::error(404, "Not Found"));
  auto e = client(server);
  auto first = e->embed({"x"});
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().find("HTTP 404"), std::string::npos) << first.error();
  EXPECT_FALSE(e->available());
  auto second = e->embed({"y"});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().find("offers no embeddings"), std::string::npos) << second.error();
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(Embeddings, OtherFailuresAreOneCallsError) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::error(500, "overloaded"));
  server.enqueue(vectors(R"([{"index":0,"embedding":[1,2]}])"));  // one vector for two texts
  server.enqueue(vectors(R"([{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}])"));
  server.enqueue(vectors(R"([{"index":0,"embedding":["a"]}])"));
  auto e = client(server);
  auto a = e->embed({"x"});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().find("HTTP 500: overloaded"), std::string::npos) << a.error();
  EXPECT_TRUE(e->available());
  auto b = e->embed({"x", "y"});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("asked for 2 vectors, got 1"), std::string::npos) << b.error();
  auto c = e->embed({"x", "y"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("not all of one length"), std::string::npos) << c.error();
  auto d = e->embed({"x"});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().find("not a number"), std::string::npos) << d.error();
  EXPECT_EQ(e->embed({}).value().size(), 0u);
  EXPECT_EQ(server.request_count(), 4u);
}

}  // namespace
}  // namespace sigil::model
