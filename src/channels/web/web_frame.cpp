#include "sigil/channels/web/web_frame.h"

#include <boost/json/serializer.hpp>

#include "sigil/text/json_string.h"

namespace sigil::channels::web {

std::string serialize(const WebFrame& frame) {
  std::string out;
  serialize(frame, out);
  return out;
}

void serialize(const WebFrame& frame, std::string& out) {
  if (const auto* piece = std::get_if<TextPiece>(&frame)) return serialize(*piece, out);
  out.clear();
  boost::json::serializer sr;
  sr.reset(&std::get<boost::json::object>(frame));
  char piece[4096];
  while (!sr.done()) out.append(sr.read(piece));
}

void serialize(const TextPiece& piece, std::string& out) {
  // One per token on a busy gateway: written directly, the same text Boost.JSON makes of
  // {"type","turn","message","text"[,"replace"]}.
  serialize_text_head(piece, out);
  append_text_tail(piece, out);
}

void serialize_text_head(const TextPiece& piece, std::string& out) {
  out.clear();
  out.reserve(56 + piece.turn.str().size() + piece.message.size() + piece.text.size());
  out.append(R"({"type":"text","turn":)");
  text::append_json_string(out, piece.turn);
  out.append(R"(,"message":)");
  text::append_json_string(out, piece.message);
  out.append(R"(,"text":)");
}

void append_text_tail(const TextPiece& piece, std::string& out) {
  text::append_json_string(out, piece.text);
  if (piece.replace) out.append(R"(,"replace":true)");
  out.push_back('}');
}

bool merge(TextPiece& piece, const TextPiece& next, std::size_t max_text) {
  if (piece.turn != next.turn || piece.message != next.message) return false;
  if (next.replace) {
    if (next.text.size() > max_text) return false;
    piece.text = next.text;
    piece.replace = true;
    return true;
  }
  if (piece.text.size() + next.text.size() > max_text) return false;
  piece.text += next.text;
  return true;
}

}  // namespace sigil::channels::web
