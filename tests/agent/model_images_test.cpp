// Pictures for the model (issue 13, item 6): a viewImage result goes into the next upstream request as an
// OpenAI vision content part beside the results text, stays there for the turn's later calls, and is taken
// out of the turn report. The upstream is a real HTTP fake that records every request.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "sigil/actions/builtin_handlers.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/openai.h"
#include "sigil/text/base64.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_openai_server.h"
#include "support/temp_dir.h"

namespace sigil::agent {
namespace {

using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;

const std::string kPngBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

class Summaries final : public TurnObserver {
 public:
  void on_text(std::string_view) override {}
  void on_delivery(const exec::Delivery&) override {}
  void on_turn_end(const TurnSummary& summary) override { last = summary; }
  TurnSummary last;
};

// The image_url parts of one request's message.
std::vector<std::string> image_parts(const boost::json::value& message) {
  std::vector<std::string> out;
  if (!message.at("content").is_array()) return out;
  for (const auto& part : message.at("content").as_array())
    if (part.at("type") == "image_url") out.emplace_back(part.at("image_url").at("url").as_string());
  return out;
}

TEST(ModelImages, TheNextRequestCarriesThePictureAsAContentPart) {
  test::TempDir dir("sigil-model-images");
  std::ofstream(dir.file("pic.png"), std::ios::binary) << *text::base64_decode(kPngBase64);
  actions::BuiltinConfig builtin;
  builtin.file_roots = {dir.path()};
  builtin.view_image.enabled = true;
  auto handlers = actions::builtin_handlers(builtin);
  ASSERT_TRUE(handlers) << handlers.error().message;
  auto store = store::sqlite::SqliteStore::open(":memory:");
  ASSERT_TRUE(store);
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"Let me look. <viewImage>pic.png</viewImage> A cat?"}));
  server.enqueue(FakeResponse::text_stream({"And the other one: <viewImage>missing.png</viewImage>"}));
  server.enqueue(FakeResponse::text_stream({"A red pixel."}));
  model::OpenAiConfig m;
  m.base_url = server.base_url();
  m.model = "vision-model";
  auto client = model::make_openai_client(m);
  const catalog::Registry registry = catalog::Registry::builtin();
  AgentConfig config;
  config.tools = ToolsMode::off;
  config.memory.enabled = false;
  Agent agent(registry, *handlers, **store, *client, config);
  auto observer = std::make_shared<Summaries>();
  TurnInput in;
  in.user = "u";
  in.conversation = "c";
  in.text = "what is in pic.png?";
  agent.start_turn(in, observer);
  agent.wait_idle();

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  const auto& first = requests[0].json.at("messages").as_array();
  for (const auto& message : first) EXPECT_TRUE(image_parts(message).empty());
  const auto& second = requests[1].json.at("messages").as_array();
  const boost::json::value& results = second.back();
  EXPECT_EQ(results.at("role"), "user");
  ASSERT_TRUE(results.at("content").is_array()) << boost::json::serialize(results);
  EXPECT_EQ(results.at("content").as_array()[0].at("type"), "text");
  EXPECT_NE(std::string(results.at("content").as_array()[0].at("text").as_string()).find("viewImage: ok"),
            std::string::npos);
  EXPECT_EQ(image_parts(results), (std::vector<std::string>{"data:image/png;base64," + kPngBase64}));

  // A later call of the same turn still shows it, with the same message.
  std::size_t pictures = 0;
  for (const auto& message : requests[2].json.at("messages").as_array())
    pictures += image_parts(message).size();
  EXPECT_EQ(pictures, 1u);
  // The report keeps what happened, not the base64.
  ASSERT_FALSE(observer->last.calls.empty());
  const auto& entry = observer->last.calls[0].report.results.at(0);
  EXPECT_EQ(entry.action, "viewImage");
  EXPECT_FALSE(entry.result.as_object().contains(actions::kModelImageKey));
  EXPECT_EQ(entry.result.at("mimeType"), "image/png");
}

}  // namespace
}  // namespace sigil::agent
