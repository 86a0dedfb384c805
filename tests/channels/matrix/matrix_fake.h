// The Matrix fake (tests/fakes/matrix.mjs) as a child process for the C++ tests (see node_fake.h), with the
// homeserver it starts with and the admin calls the Matrix tests make.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <string>

#include "channels/node_fake.h"
#include "sigil/net/url.h"

namespace sigil::channels::matrix::testing {

inline constexpr const char* kToken = "syt_c2lnaWw_sigilFakeAccessTokenNotASecret_0AbCdE";
inline constexpr const char* kBot = "@sigil:sigil.test";
inline constexpr const char* kAlice = "@alice:sigil.test";
inline constexpr const char* kBob = "@bob:sigil.test";
inline constexpr const char* kDm = "!dm-alice:sigil.test";
inline constexpr const char* kGeneral = "!general:sigil.test";
inline constexpr const char* kSecret = "!secret:sigil.test";

class MatrixFake : public channels::testing::NodeFake {
 public:
  static constexpr const char* kName = "Matrix";
  MatrixFake() : NodeFake("matrix.mjs", "sigil-matrix-fake") {}

  // A user's message (`fields` as /_fake/messages takes them); its event.
  boost::json::object message(boost::json::object fields) {
    const auto v = admin("POST", "/_fake/messages", boost::json::serialize(fields));
    return v.at("event").as_object();
  }
  std::string user_message(const std::string& body, const std::string& room = kDm) {
    return std::string(message({{"body", body}, {"room", room}}).at("event_id").as_string());
  }
  // The room's non-state events as a user sees them (GET /_fake/rooms/<id>).
  boost::json::array events(const std::string& room) {
    const auto v = admin("GET", "/_fake/rooms/" + net::percent_encode(room));
    return v.at("room").at("events").as_array();
  }
  // The room's events sent by `sender` of `type`.
  boost::json::array events_by(const std::string& room, const std::string& sender,
                               const std::string& type = "m.room.message") {
    boost::json::array out;
    for (const auto& e : events(room))
      if (e.at("sender").as_string() == sender && e.at("type").as_string() == type) out.push_back(e);
    return out;
  }
  void fault(const boost::json::object& f) { admin("POST", "/_fake/faults", boost::json::serialize(f)); }
};

class MatrixFakeTest : public channels::testing::NodeFakeTest<MatrixFake> {};

}  // namespace sigil::channels::matrix::testing
