// The web chat's client frames, parsed without a socket (server/client_frames.h).
#include "server/client_frames.h"

#include <gtest/gtest.h>

namespace sigil::server {
namespace {

using Type = ClientFrame::Type;

TEST(ClientFramesTest, TheThreeFrames) {
  const ClientFrame message = parse_client_frame(R"({"type":"message","text":"hi","client_id":"c1"})");
  EXPECT_EQ(message.type, Type::Message);
  EXPECT_EQ(message.text, "hi");
  EXPECT_EQ(message.client_id, "c1");

  const ClientFrame settings = parse_client_frame(R"({"type":"settings","say_mode":true})");
  EXPECT_EQ(settings.type, Type::Settings);
  EXPECT_TRUE(settings.say_mode);
  EXPECT_FALSE(settings.client_id.has_value());

  const ClientFrame cancel = parse_client_frame(R"({"type":"cancel","turn":"web-1","client_id":null})");
  EXPECT_EQ(cancel.type, Type::Cancel);
  EXPECT_EQ(cancel.text, "web-1");
  EXPECT_FALSE(cancel.client_id.has_value());
}

TEST(ClientFramesTest, WhatIsWrongIsSaidAndTheClientIdEchoedOnceRead) {
  struct Case {
    const char* frame;
    const char* error;
    bool has_client_id;
  };
  for (const Case& c : {
           Case{"not json", "malformed frame: expected a JSON object with a \"type\"", false},
           Case{"[1]", "malformed frame: expected a JSON object with a \"type\"", false},
           Case{R"({"text":"hi"})", "malformed frame: \"type\" must be a string", false},
           Case{R"({"type":1,"client_id":"x"})", "malformed frame: \"type\" must be a string", false},
           Case{R"({"type":"message","client_id":7})", "malformed frame: \"client_id\" must be a string",
                false},
           Case{R"({"type":"message","text":"","client_id":"x"})",
                "malformed frame: \"text\" must be a non-empty string", true},
           Case{R"({"type":"settings","say_mode":"yes","client_id":"x"})",
                "malformed frame: \"say_mode\" must be true or false", true},
           Case{R"({"type":"cancel","turn":5,"client_id":"x"})", "malformed frame: \"turn\" must be a string",
                true},
           Case{R"({"type":"dance","client_id":"x"})", "unknown frame type \"dance\"", true},
       }) {
    const ClientFrame frame = parse_client_frame(c.frame);
    EXPECT_EQ(frame.type, Type::Invalid) << c.frame;
    EXPECT_EQ(frame.text, c.error) << c.frame;
    EXPECT_EQ(frame.client_id.has_value(), c.has_client_id) << c.frame;
    if (c.has_client_id) {
      EXPECT_EQ(*frame.client_id, "x");
    }
  }
}

}  // namespace
}  // namespace sigil::server
