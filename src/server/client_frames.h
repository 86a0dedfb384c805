// The web chat protocol's client -> server frames (docs/gateway.md), parsed and checked without a socket
// (tests/server/client_frames_test.cpp). The WebSocket session acts on what comes back.
//
// What it promises:
// - A frame is a JSON object with a string "type" and an optional "client_id" (string or null), which the
//   answer to the frame echoes. "message" needs a non-empty string "text", "settings" a boolean
//   "say_mode", "cancel" a string "turn"; anything else is Invalid with the message for an error frame
//   (and the client_id, once it was read).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sigil::server {

struct ClientFrame {
  enum class Type : unsigned char { Message, Settings, Cancel, Invalid } type = Type::Invalid;
  std::optional<std::string> client_id;
  std::string text;       // Message: the text; Cancel: the turn id; Invalid: what is wrong
  bool say_mode = false;  // Settings
};

ClientFrame parse_client_frame(std::string_view frame);

}  // namespace sigil::server
