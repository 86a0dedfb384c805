// A frame of the web chat protocol from the server to a page (docs/gateway.md), typed from where it is made
// (the web channel, the gateway's ws_frames) to the socket that writes it: the hub and each connection's
// FrameQueue carry it as data, and serialize() at the edge is the only place it becomes JSON text.
//
// What it promises:
// - A piece of a text message is a TextPiece: {"type":"text","turn","message","text"} and "replace":true
//   when it replaces the message's text instead of adding to it. A connection that falls behind merges
//   consecutive pieces of one message by these fields (merge()), never by reading JSON.
// - Every other frame is its JSON object, as built by the function that names its type.
// - serialize() is deterministic: the same frame always gives the same text (field order as built).
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sigil::channels::web {

// A turn's id as its text pieces carry it: one string shared by every piece of the turn, not a copy in
// each (a web turn's id is longer than a std::string keeps inline, and a busy gateway makes a piece per
// token). Immutable; compares by value.
class SharedId {
 public:
  SharedId() : SharedId(std::string()) {}
  SharedId(std::string id) : id_(std::make_shared<const std::string>(std::move(id))) {}  // NOLINT: implicit
  SharedId(const char* id) : SharedId(std::string(id)) {}                                // NOLINT: implicit

  const std::string& str() const { return *id_; }
  operator std::string_view() const { return *id_; }  // NOLINT: implicit, as a string's
  friend bool operator==(const SharedId& a, const SharedId& b) { return a.id_ == b.id_ || *a.id_ == *b.id_; }

 private:
  std::shared_ptr<const std::string> id_;
};

struct TextPiece {
  SharedId turn;
  std::string message;  // the text message's id ("m1", ...)
  std::string text;
  bool replace = false;  // true: `text` is the message's whole text now; false: it goes at its end
};

using WebFrame = std::variant<TextPiece, boost::json::object>;
using SharedFrame = std::shared_ptr<const WebFrame>;

std::string serialize(const WebFrame& frame);
// The same text into `out` (its content replaced, its capacity kept): a connection that writes one frame
// at a time renders every frame into one buffer instead of a string each.
void serialize(const WebFrame& frame, std::string& out);
void serialize(const TextPiece& piece, std::string& out);
// A text piece's JSON in two parts, serialize(piece) = head + tail. The head (`out` replaced) depends only
// on the piece's turn and message: {"type":"text","turn":…,"message":…,"text": ; the tail (appended to
// `out`) is the text's value, "replace" and the closing brace. A connection that writes the pieces of
// one message one after another renders the head once and only the tail per token.
void serialize_text_head(const TextPiece& piece, std::string& out);
void append_text_tail(const TextPiece& piece, std::string& out);

// Merges `next` into `piece` when both are pieces of the same message of the same turn and the result
// stays within `max_text` bytes: an appended piece adds its text, a replacing piece replaces the text
// (and the merged piece replaces too). False (nothing changed) otherwise.
bool merge(TextPiece& piece, const TextPiece& next, std::size_t max_text);

}  // namespace sigil::channels::web
