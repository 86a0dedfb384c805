// The Slack fake (tests/fakes/slack.mjs) as a child process for the C++ tests (see node_fake.h), with the
// Slack workspace it starts with and the admin calls the Slack tests make.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <string>

#include "channels/node_fake.h"

namespace sigil::channels::slack::testing {

inline constexpr const char* kBotToken = "xoxb-1000000001-2000000002-sigilFakeBotTokenNotASecret";
inline constexpr const char* kAppToken = "xapp-1-A0SIGIL0001-3000000003-sigilfakeapptokennotasecret";
inline constexpr const char* kGeneral = "C0GENERAL01";
inline constexpr const char* kRandom = "C0RANDOM001";
inline constexpr const char* kDm = "D0ALICEDM01";
inline constexpr const char* kBotUser = "U0SIGILBOT1";

class SlackFake : public channels::testing::NodeFake {
 public:
  static constexpr const char* kName = "Slack";
  SlackFake() : NodeFake("slack.mjs", "sigil-slack-fake") {}

  std::string api() const { return url() + "/api"; }

  // A user's message in `channel` (the DM by default); its ts.
  std::string user_message(const std::string& text, const std::string& channel = kDm) {
    const auto v = admin("POST", "/_fake/messages",
                         boost::json::serialize(boost::json::object{{"text", text}, {"channel", channel}}));
    return std::string(v.at("message").at("ts").as_string());
  }
  // The channel's messages as a user sees them (GET /_fake/channels/<id>).
  boost::json::array messages(const std::string& channel) {
    const auto v = admin("GET", "/_fake/channels/" + channel);
    return v.at("channel").at("messages").as_array();
  }
};

// A class, not an alias: fixtures derived from it call SlackFakeTest::SetUp() by this name.
class SlackFakeTest : public channels::testing::NodeFakeTest<SlackFake> {};

}  // namespace sigil::channels::slack::testing
