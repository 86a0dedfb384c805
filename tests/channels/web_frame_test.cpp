// A text piece is written directly (one per token on a busy gateway): the text must be exactly what
// Boost.JSON makes of the same object, so a page reads the same frames as before.
#include "sigil/channels/web/web_frame.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace sigil::channels::web {
namespace {

std::string as_boost_writes_it(const TextPiece& p) {
  boost::json::object o{{"type", "text"}, {"turn", p.turn.str()}, {"message", p.message}, {"text", p.text}};
  if (p.replace) o["replace"] = true;
  return boost::json::serialize(o);
}

TEST(WebFrame, TextPieceIsWrittenAsBoostJsonWritesIt) {
  for (const bool replace : {false, true}) {
    for (std::string_view text :
         {std::string_view(""), std::string_view("word "), std::string_view("\"quoted\" \\ back\nline\ttab"),
          std::string_view("\x01\x1f\x7f"), std::string_view("caf\xc3\xa9 \xf0\x9f\x91\x8d")}) {
      const TextPiece piece{"turn-\"1\"", "m12", std::string(text), replace};
      EXPECT_EQ(serialize(WebFrame(piece)), as_boost_writes_it(piece)) << text;
    }
  }
}

}  // namespace
}  // namespace sigil::channels::web
