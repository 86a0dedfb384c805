// The Discord fake (tests/fakes/discord.mjs) as a child process for the C++ tests (see node_fake.h), with
// the guild it starts with and the admin calls the Discord tests make.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <string>

#include "channels/node_fake.h"

namespace sigil::channels::discord::testing {

inline constexpr const char* kToken = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.GfAkEt.sigil-test-token-not-a-secret";
inline constexpr const char* kGeneral = "1200000000000000200";
inline constexpr const char* kDm = "1200000000000000400";
inline constexpr const char* kBot = "1200000000000000001";

class DiscordFake : public channels::testing::NodeFake {
 public:
  static constexpr const char* kName = "Discord";
  // A one-second heartbeat, so the tests see beats and missed acks quickly.
  DiscordFake() : NodeFake("discord.mjs", "sigil-dc-fake", {"--heartbeat-ms", "1000"}) {}

  std::string api() const { return url() + "/api/v10"; }

  // A user's message in `channel` (the DM by default), as Discord's users would write it; its id.
  std::string user_message(const std::string& content, const std::string& channel = kDm) {
    const auto v =
        admin("POST", "/_fake/messages",
              boost::json::serialize(boost::json::object{{"content", content}, {"channel_id", channel}}));
    return std::string(v.at("message").at("id").as_string());
  }
};

// A class, not an alias: fixtures derived from it call DiscordFakeTest::SetUp() by this name.
class DiscordFakeTest : public channels::testing::NodeFakeTest<DiscordFake> {};

}  // namespace sigil::channels::discord::testing
