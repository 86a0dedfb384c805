// createAIImage (issue 13, item 6) through the real parser and executor against a real HTTP fake of the
// OpenAI images endpoint on loopback: the request as OpenAI documents it, the picture delivered where the
// directive stood, exactly once across a replay, and every failure a clear line.
#include "sigil/actions/create_image.h"

#include <gtest/gtest.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <string>

#include "../support/run_turn.h"
#include "sigil/text/base64.h"
#include "support/fake_openai_server.h"
#include "support/handler_context.h"

namespace sigil::actions {
namespace {

using Op = exec::Delivery::Op;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;

// A real 1x1 PNG (a red pixel).
const std::string kPng = *text::base64_decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==");

FakeResponse image_answer(const std::string& b64, const std::string& extra = "") {
  FakeResponse r;
  r.body = R"({"created":1700000000,"data":[{"b64_json":")" + b64 + "\"" + extra + "}]}";
  return r;
}

ImageConfig config_for(const FakeOpenAiServer& server, std::string model = "dall-e-3") {
  ImageConfig c;
  c.base_url = server.base_url();
  c.api_key = "sk-image";
  c.model = std::move(model);
  c.timeout = std::chrono::milliseconds(5'000);
  return c;
}

exec::HandlerTable table_for(const ImageConfig& config) {
  exec::HandlerTable table;
  EXPECT_TRUE(add_create_image_handlers(table, config));
  return table;
}

std::string payload_bytes(const exec::Payload& p) {
  std::string out(p.size(), '\0');
  const std::int64_t got = p.read_at(0, out);
  out.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return out;
}

TEST(CreateImage, PostsTheDocumentedRequestAndShowsThePictureWhereTheDirectiveStood) {
  FakeOpenAiServer server;
  server.enqueue(image_answer(text::base64_encode(kPng), R"(,"revised_prompt":"a red fox in snow")"));
  auto store = test::memory_store();
  auto run =
      test::run_turn(R"(Here: <createAIImage>{"prompt":"a red fox","size":"16:9"}</createAIImage> Enjoy.)",
                     table_for(config_for(server)), *store);
  ASSERT_EQ(run.report.results.size(), 1u);
  const exec::ResultEntry& r = run.report.results[0];
  ASSERT_EQ(r.status, exec::ResultStatus::Ok) << r.message;
  EXPECT_EQ(r.message, "showed a 1792x1024 picture (PNG, 70 bytes) for \"a red fox\"");
  EXPECT_EQ(r.result.at("revisedPrompt"), "a red fox in snow");
  EXPECT_EQ(r.result.at("mimeType"), "image/png");

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/v1/images/generations");
  EXPECT_EQ(requests[0].authorization, "Bearer sk-image");
  const boost::json::object& body = requests[0].json.as_object();
  EXPECT_EQ(body.at("model"), "dall-e-3");
  EXPECT_EQ(body.at("prompt"), "a red fox");
  EXPECT_EQ(body.at("n"), 1);
  EXPECT_EQ(body.at("size"), "1792x1024");
  EXPECT_EQ(body.at("response_format"), "b64_json");

  // Text, the picture, text: reply order.
  ASSERT_EQ(run.outbox.ops().size(), 3u);
  EXPECT_EQ(run.outbox.ops()[0].text, "Here:");
  const exec::Delivery& d = run.outbox.ops()[1];
  EXPECT_EQ(d.op, Op::File);
  EXPECT_EQ(d.kind, "image");
  ASSERT_TRUE(d.payload);
  EXPECT_EQ(payload_bytes(*d.payload), kPng);
  EXPECT_EQ(d.payload->mime_type(), "image/png");
  EXPECT_EQ(d.path, "image-" + d.sha256.substr(0, 12) + ".png");
  EXPECT_NE(run.outbox.ops()[2].text.find("Enjoy."), std::string::npos);
}

TEST(CreateImage, AReplayedTurnNeitherAsksAgainNorShowsThePictureAgain) {
  FakeOpenAiServer server;
  server.enqueue(image_answer(text::base64_encode(kPng)));
  auto store = test::memory_store();
  const auto table = table_for(config_for(server));
  const std::string reply = "<createAIImage>a lighthouse at dusk</createAIImage>";
  auto first = test::run_turn(reply, table, *store);
  ASSERT_EQ(first.report.results[0].status, exec::ResultStatus::Ok) << first.report.results[0].message;
  auto again = test::run_turn(reply, table, *store);  // same ids: the same turn, replayed
  ASSERT_EQ(again.report.results.size(), 1u);
  EXPECT_EQ(again.report.results[0].status, exec::ResultStatus::Duplicate);
  EXPECT_EQ(again.report.results[0].result.at("sha256"), first.report.results[0].result.at("sha256"));
  for (const auto& op : again.outbox.ops()) EXPECT_NE(op.op, Op::File);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(CreateImage, GptImageModelsAreNotSentResponseFormat) {
  FakeOpenAiServer server;
  server.enqueue(image_answer(text::base64_encode(kPng)));
  auto store = test::memory_store();
  auto run = test::run_turn("<createAIImage>a cat</createAIImage>",
                            table_for(config_for(server, "gpt-image-1")), *store);
  ASSERT_EQ(run.report.results[0].status, exec::ResultStatus::Ok) << run.report.results[0].message;
  const auto requests = server.requests();
  const boost::json::object& body = requests.at(0).json.as_object();
  EXPECT_FALSE(body.contains("response_format"));
  EXPECT_EQ(body.at("size"), "1024x1024");
}

struct Failing {
  FakeResponse answer;
  std::string expected;  // the model's whole line
};

TEST(CreateImage, EveryFailureIsAClearErrorLine) {
  FakeResponse limited = FakeResponse::error(429, "Rate limit reached for images");
  limited.headers.push_back({"Retry-After", "20"});
  FakeResponse not_json;
  not_json.body = "<html>oops</html>";
  const std::vector<Failing> cases = {
      {FakeResponse::error(400, "Your request was rejected by the safety system."),
       "createAIImage: the image server (dall-e-3) answered HTTP 400: Your request was rejected by the "
       "safety "
       "system."},
      {FakeResponse::error(500, "The server had an error"),
       "createAIImage: the image server (dall-e-3) answered HTTP 500: The server had an error"},
      {limited,
       "createAIImage: the image server (dall-e-3) answered HTTP 429: Rate limit reached for images; try "
       "again "
       "in 20s"},
      {image_answer("not base64!"),
       "createAIImage: the image server (dall-e-3) sent picture data that is not base64"},
      {image_answer(text::base64_encode("plain text, no picture")),
       "createAIImage: the image server (dall-e-3) sent data that is not a PNG, JPEG, GIF, WebP or BMP "
       "picture"},
      {not_json, "createAIImage: the image server (dall-e-3) answered without a picture (no \"data\" list)"},
      {[] {
         FakeResponse r;
         r.body = R"({"data":[{"url":"https://images.example/1.png"}]})";
         return r;
       }(),
       "createAIImage: the image server (dall-e-3) answered a URL, not the picture's data (b64_json)"},
  };
  for (const Failing& c : cases) {
    FakeOpenAiServer server;
    server.enqueue(c.answer);
    auto store = test::memory_store();
    auto run =
        test::run_turn("Look <createAIImage>a fox</createAIImage>", table_for(config_for(server)), *store);
    ASSERT_EQ(run.report.results.size(), 1u);
    EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
    EXPECT_EQ(run.report.results[0].message, c.expected);
    EXPECT_EQ(run.text(), "Look") << "never raw markup";
    EXPECT_NE(run.model_message.find(c.expected.substr(std::string("createAIImage: ").size())),
              std::string::npos)
        << run.model_message;
  }
}

TEST(CreateImage, APictureOverTheCapIsRefused) {
  FakeOpenAiServer server;
  server.enqueue(image_answer(text::base64_encode(kPng + std::string(4000, '\0'))));
  auto config = config_for(server);
  config.max_image_bytes = 1024;
  auto store = test::memory_store();
  auto run = test::run_turn("<createAIImage>big</createAIImage>", table_for(config), *store);
  EXPECT_EQ(run.report.results[0].message, "createAIImage: the picture is larger than 1 KiB");
}

TEST(CreateImage, AModelWithoutAnHttpServerIsRefusedAtStart) {
  exec::HandlerTable table;
  ImageConfig config;
  config.model = "gpt-image-1";
  config.base_url = "ftp://images.example";
  const auto added = add_create_image_handlers(table, config);
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().message,
            "[images] model needs [images] url or [model] url, an http(s):// address of an images server");
}

TEST(CreateImage, WithoutAnImageModelItSaysSoAndShowsNoMarkup) {
  exec::HandlerTable table;
  ASSERT_TRUE(add_create_image_handlers(table, ImageConfig{}));
  auto store = test::memory_store();
  auto run = test::run_turn("A <createAIImage>{\"prompt\":\"a red fox\"}</createAIImage>b", table, *store);
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].message,
            "createAIImage: no image model is configured on this server ([images] model)");
  EXPECT_EQ(run.text().find("createAIImage"), std::string::npos);
  EXPECT_EQ(run.text().substr(0, 1), "A");
  EXPECT_FALSE(image_generation_configured(ImageConfig{}));
}

TEST(CreateImage, SizesAreWrittenOrRatiosOrRefused) {
  ImageConfig c;
  c.model = "gpt-image-1";
  EXPECT_EQ(*image_size("", c), "1024x1024");
  EXPECT_EQ(*image_size("9:16", c), "1024x1536");
  EXPECT_EQ(*image_size(" 512x512 ", c), "512x512");
  EXPECT_EQ(*image_size("AUTO", c), "auto");
  EXPECT_FALSE(image_size("huge", c));
  EXPECT_FALSE(image_size("x512", c));
  EXPECT_FALSE(image_size("1024x", c));
  c.model = "dall-e-3";
  EXPECT_EQ(*image_size("4:3", c), "1792x1024");
}

}  // namespace
}  // namespace sigil::actions
