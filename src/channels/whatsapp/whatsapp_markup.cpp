#include "sigil/channels/whatsapp/whatsapp_markup.h"

#include <string>

#include "channels/chat_markdown_walk.h"
#include "sigil/text/char_refs.h"

namespace sigil::channels::whatsapp {
namespace {

constexpr std::string_view kZwsp = "\xE2\x80\x8B";  // U+200B ZERO WIDTH SPACE

// What opens and closes an emphasis span ("" for the spans WhatsApp has no syntax for).
std::string_view span_marker(MD_SPANTYPE type) {
  switch (type) {
    case MD_SPAN_EM:
      return "_";
    case MD_SPAN_STRONG:
      return "*";
    case MD_SPAN_DEL:
      return "~";
    default:
      return "";
  }
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }
bool ends_word(char c) { return !is_space(c) && c != '(' && c != '"' && c != '\''; }

class Renderer final : public ChatMarkdownWalk {
 public:
  Renderer() : ChatMarkdownWalk({.bullet = "- ", .bold_open = "*", .bold_close = "*"}) {}
  std::string run(std::string_view markdown) {
    if (!walk(markdown))
      return escape_whatsapp_text(markdown, false);  // md4c gives up only on memory exhaustion
    return trimmed();
  }

 private:
  bool after_word() const { return !out_.empty() && ends_word(out_.back()); }
  bool line_start() const override { return out_.empty() || out_.back() == '\n'; }
  void enter_heading(unsigned) override { out_ += "*"; }
  void leave_heading() override { out_ += "*"; }
  void enter_code(const std::string&) override { open_fence(""); }  // WhatsApp shows no language
  void leave_code() override { close_fence(code_block()); }

  int enter_span(MD_SPANTYPE type, void* detail) override {
    if (in_link_) return 0;  // no formatting inside a link's text
    out_ += span_marker(type);
    if (type == MD_SPAN_CODE) open_code_span();
    if (type == MD_SPAN_A) open_link(detail);
    return 0;
  }

  int leave_span(MD_SPANTYPE type) override {
    if (in_link_ && type != MD_SPAN_A) return 0;
    out_ += span_marker(type);
    if (type == MD_SPAN_CODE) {
      in_code_span_ = false;
      if (code_.find('`') != std::string::npos)
        out_ += escape_whatsapp_text(code_, after_word());
      else
        out_ += "`" + code_ + "`";
    } else if (type == MD_SPAN_A) {
      in_link_ = false;
      if (is_autolink()) {
        out_.resize(link_text_start_);
        out_ += link_href_;
      } else if (link_href_ != link_raw_) {
        out_ += " (" + link_href_ + ")";
      }
    }
    return 0;
  }

  int text(MD_TEXTTYPE type, std::string_view s) override {
    if (gathered(s)) return 0;
    switch (type) {
      case MD_TEXT_NULLCHAR:
        out_ += s;
        break;
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR:
        line_break();
        break;
      case MD_TEXT_ENTITY: {
        std::string decoded;
        out_ += escape_whatsapp_text(text::decode_char_ref(s, decoded) ? std::string_view(decoded) : s,
                                     after_word());
        break;
      }
      default:
        if (in_link_) link_raw_ += s;
        out_ += escape_whatsapp_text(s, after_word());
        break;
    }
    return 0;
  }
};

}  // namespace

std::string escape_whatsapp_text(std::string_view text, bool after_word) {
  std::string out;
  out.reserve(text.size() + 8);
  bool word = after_word;
  for (char c : text) {
    // A formatting character at the start of a word could open a span: the zero-width space before it
    // makes it follow a "word" character, which WhatsApp does not take as an opening.
    if ((c == '*' || c == '_' || c == '~' || c == '`') && !word) out += kZwsp;
    out += c;
    word = ends_word(c);
  }
  return out;
}

std::string render_whatsapp(std::string_view markdown) { return Renderer().run(markdown); }

}  // namespace sigil::channels::whatsapp
