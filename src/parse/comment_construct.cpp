// Comments and CDATA sections (spec 2.7): removed whole.
#include "parser_impl.h"

namespace sigil::parse {

// ---------------------------------------------------------------------------------------------------------
// Comments and CDATA (2.7): removed whole; nothing inside counts; only their limit abandons them.

void Parser::Impl::comment_byte(unsigned char c, const Ctx& ctx) {
  if (c_.held.size() >= opt_.tag_limit) {
    diag("comment-too-long", input_offset(c_.begin), "a comment reached its limit and was released as text");
    release_all();
    text_byte(c, ctx);
    return;
  }
  c_.held += static_cast<char>(c);
  const std::size_t opener = c_.kind == Kind::Comment ? 4 : 9;
  std::string_view end_mark = c_.kind == Kind::Comment ? "-->" : "]]>";
  const std::string& h = c_.held;
  if (h.size() >= opener + 3 && c == '>' && std::string_view(h).substr(h.size() - 3) == end_mark) {
    const auto code = c_.code_at_begin;
    reset_construct();
    removed_markup(code);
  }
}

}  // namespace sigil::parse
