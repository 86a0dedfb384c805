#include "sigil/channels/web/web_frame.h"

#include <boost/json/serialize.hpp>

#include "sigil/text/json_string.h"

namespace sigil::channels::web {

std::string serialize(const WebFrame& frame) {
  if (const auto* piece = std::get_if<TextPiece>(&frame)) {
    // One per token on a busy gateway: written directly, the same text Boost.JSON makes of
    // {"type","turn","message","text"[,"replace"]}.
    std::string out;
    out.reserve(56 + piece->turn.size() + piece->message.size() + piece->text.size());
    out.append(R"({"type":"text","turn":)");
    text::append_json_string(out, piece->turn);
    out.append(R"(,"message":)");
    text::append_json_string(out, piece->message);
    out.append(R"(,"text":)");
    text::append_json_string(out, piece->text);
    if (piece->replace) out.append(R"(,"replace":true)");
    out.push_back('}');
    return out;
  }
  return boost::json::serialize(std::get<boost::json::object>(frame));
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
