// The signal-cli fake (tests/fakes/signal.mjs) as a child process for the C++ tests (see node_fake.h), with
// the account, people and groups it starts with and the admin calls the Signal tests make.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <string>
#include <vector>

#include "channels/node_fake.h"

namespace sigil::channels::signal::testing {

inline constexpr const char* kAccount = "+15550100001";
inline constexpr const char* kAlice = "+15550100002";
inline constexpr const char* kAliceUuid = "a11ce000-0000-4000-8000-000000000002";
inline constexpr const char* kBob = "+15550100003";
// "Sigil Test": base64 of 32 bytes 0x51.
inline constexpr const char* kGroup = "UVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVFRUVE=";

class SignalFake : public channels::testing::NodeFake {
 public:
  static constexpr const char* kName = "Signal";
  explicit SignalFake(const std::vector<std::string>& extra = {"--receive-mode", "on-connection"})
      : NodeFake("signal.mjs", "sigil-signal-fake", extra) {}

  // A user's message; its envelope timestamp.
  std::int64_t user_message(const boost::json::object& spec) {
    const auto v = admin("POST", "/_fake/messages", boost::json::serialize(spec));
    return v.at("envelope").at("timestamp").as_int64();
  }
  std::int64_t user_message(const std::string& text, const std::string& from = "alice") {
    return user_message(boost::json::object{{"from", from}, {"text", text}});
  }
  // A chat as its members see it (GET /_fake/chats/<key>): its messages.
  boost::json::array messages(const std::string& key) {
    std::string path;
    for (char c : key)
      path += c == '+'   ? std::string("%2B")
              : c == '/' ? std::string("%2F")
              : c == '=' ? std::string("%3D")
                         : std::string(1, c);
    return admin("GET", "/_fake/chats/" + path).at("messages").as_array();
  }
  // The account's own messages in a chat, oldest first.
  std::vector<boost::json::object> bot_messages(const std::string& key) {
    std::vector<boost::json::object> out;
    for (const auto& m : messages(key))
      if (m.at("author").as_string() == kAccount) out.push_back(m.as_object());
    return out;
  }
};

class SignalFakeTest : public channels::testing::NodeFakeTest<SignalFake> {};

}  // namespace sigil::channels::signal::testing
