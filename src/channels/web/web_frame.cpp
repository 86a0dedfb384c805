#include "sigil/channels/web/web_frame.h"

#include <boost/json/serialize.hpp>

namespace sigil::channels::web {

std::string serialize(const WebFrame& frame) {
  if (const auto* piece = std::get_if<TextPiece>(&frame)) {
    boost::json::object o{
        {"type", "text"}, {"turn", piece->turn}, {"message", piece->message}, {"text", piece->text}};
    if (piece->replace) o["replace"] = true;
    return boost::json::serialize(o);
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
