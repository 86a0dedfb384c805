// The WhatsApp fake (tests/fakes/whatsapp.mjs) as a child process for the C++ tests (see node_fake.h), with
// the business number and users it starts with and the admin calls the WhatsApp tests make.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <string>

#include "channels/node_fake.h"

namespace sigil::channels::whatsapp::testing {

inline constexpr const char* kToken = "EAAGsigilFakeSystemUserTokenNotASecret0000000000";
inline constexpr const char* kAppSecret = "sigil-fake-app-secret-not-a-secret";
inline constexpr const char* kVerifyToken = "sigil-fake-verify-token";
inline constexpr const char* kPhoneNumberId = "106540352242922";
inline constexpr const char* kAlice = "16505551234";
inline constexpr const char* kNobody = "15005550006";

class WhatsAppFake : public channels::testing::NodeFake {
 public:
  static constexpr const char* kName = "WhatsApp";
  WhatsAppFake() : NodeFake("whatsapp.mjs", "sigil-whatsapp-fake") {}

  std::string api() const { return url() + "/v23.0"; }

  // A user's message (POST /_fake/messages with `spec`, from alice unless it says); the fake's answer:
  // {message, delivery_id, payload}.
  boost::json::object user_message(boost::json::object spec) {
    if (!spec.contains("from")) spec["from"] = kAlice;
    return admin("POST", "/_fake/messages", boost::json::serialize(spec)).as_object();
  }
  std::string user_says(const std::string& text) {
    return std::string(user_message({{"text", text}}).at("message").at("id").as_string());
  }
  // The user's chat as they see it (GET /_fake/users/<wa_id>).
  boost::json::object chat(const std::string& wa_id = kAlice) {
    return admin("GET", "/_fake/users/" + wa_id).at("user").as_object();
  }
  // The messages the business sent to the user, in order.
  boost::json::array sent(const std::string& wa_id = kAlice) {
    boost::json::array out;
    const boost::json::object c = chat(wa_id);  // kept: the loop reads into it
    for (const auto& m : c.at("messages").as_array())
      if (m.at("direction").as_string() == "out") out.push_back(m);
    return out;
  }
  void fault(const std::string& json) { admin("POST", "/_fake/faults", json); }
};

class WhatsAppFakeTest : public channels::testing::NodeFakeTest<WhatsAppFake> {};

}  // namespace sigil::channels::whatsapp::testing
