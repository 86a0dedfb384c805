// The delivery as API clients see it (server/delivery_json.h): files and voice notes kept in the media
// store with a URL that serves their bytes, never a server path, never the bytes themselves.
#include "server/delivery_json.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "deliver/fake_channel.h"

namespace sigil::server {
namespace {

namespace json = boost::json;

exec::Delivery voice_note() {
  exec::Delivery d;
  d.op = exec::Delivery::Op::Voice;
  d.path = "/tmp/sigil-voice-123.ogg";  // the action's temporary file: gone once the turn is over
  d.duration_ms = 1200;
  d.payload = std::make_shared<deliver::testing::MemoryPayload>("voice.ogg", "OggS-bytes", "audio/ogg");
  return d;
}

TEST(DeliveryJsonTest, AVoiceNoteIsKeptAndLinkedNeverItsTempPath) {
  MediaStore media("");  // in memory
  const json::object o = delivery_json(voice_note(), &media);
  EXPECT_FALSE(o.contains("path"));
  EXPECT_EQ(o.at("op").as_string(), "voice");
  EXPECT_EQ(o.at("duration_ms").to_number<std::int64_t>(), 1200);
  EXPECT_EQ(o.at("size").to_number<std::uint64_t>(), 10u);
  const std::string url(o.at("url").as_string());
  ASSERT_TRUE(url.starts_with("/media/" + std::string(o.at("sha256").as_string()) + "/")) << url;
  // The URL serves exactly the bytes.
  auto found = media.find(std::string(o.at("sha256").as_string()), "voice.ogg");
  ASSERT_TRUE(found.has_value());
  ASSERT_TRUE(found->bytes);
  EXPECT_EQ(*found->bytes, "OggS-bytes");
  EXPECT_EQ(json::serialize(o).find("/tmp/"), std::string::npos);
}

TEST(DeliveryJsonTest, AFileWithoutAStoreSaysWhyItHasNoUrl) {
  exec::Delivery d;
  d.op = exec::Delivery::Op::File;
  d.path = "reports/plan.pdf";
  d.kind = "document";
  d.caption = "The plan";
  d.payload = std::make_shared<deliver::testing::MemoryPayload>("plan.pdf", "%PDF", "application/pdf");
  const json::object o = delivery_json(d, nullptr);
  EXPECT_TRUE(o.at("url").is_null());
  EXPECT_FALSE(o.at("error").as_string().empty());
  EXPECT_EQ(o.at("name").as_string(), "plan.pdf");
  EXPECT_EQ(o.at("mime").as_string(), "application/pdf");
  EXPECT_EQ(o.at("caption").as_string(), "The plan");
  EXPECT_FALSE(o.contains("path"));
}

TEST(DeliveryJsonTest, ReactionsAndRelayedMessagesKeepTheirFields) {
  exec::Delivery r;
  r.op = exec::Delivery::Op::Reaction;
  r.emoji = "👍";
  EXPECT_EQ(json::serialize(delivery_json(r, nullptr)), R"({"op":"reaction","emoji":"👍","message":""})");
  exec::Delivery m;
  m.op = exec::Delivery::Op::Message;
  m.text = "hi";
  m.channel = "telegram";
  m.chat = "42";
  EXPECT_EQ(json::serialize(delivery_json(m, nullptr)),
            R"({"op":"message","text":"hi","channel":"telegram","chat":"42"})");
}

}  // namespace
}  // namespace sigil::server
