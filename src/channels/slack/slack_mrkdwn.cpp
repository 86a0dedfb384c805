#include "sigil/channels/slack/slack_mrkdwn.h"

#include <string>

#include "channels/chat_markdown_walk.h"
#include "channels/html_escape.h"
#include "sigil/text/char_refs.h"

namespace sigil::channels::slack {
namespace {

constexpr std::string_view kZwsp = "\xE2\x80\x8B";  // U+200B ZERO WIDTH SPACE

// What opens and closes an emphasis span in mrkdwn ("" for the spans Slack has no syntax for).
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

// `& < >` as Slack's entities: the only escaping mrkdwn has.
std::string escaped(std::string_view s) { return html_escaped(s, false); }

// A link's URL inside <url|text>: '|' and '>' would end its parts, so they are percent-encoded.
std::string link_url(std::string_view url) {
  std::string out;
  for (char c : url) {
    if (c == '|')
      out += "%7C";
    else if (c == '>')
      out += "%3E";
    else if (c == '<')
      out += "%3C";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

class Renderer final : public ChatMarkdownWalk {
 public:
  Renderer() : ChatMarkdownWalk({.bullet = "\xE2\x80\xA2 ", .bold_open = "*", .bold_close = "*"}) {}
  std::string run(std::string_view markdown) {
    if (!walk(markdown))
      return escape_slack_text(markdown, false);  // md4c gives up only on memory exhaustion
    return trimmed();
  }

 private:
  // Whether the last character written ends a word (so a formatting character next could not open).
  bool after_word() const {
    if (out_.empty()) return false;
    const char c = out_.back();
    return !is_space(c) && c != '(' && c != '"' && c != '\'';
  }
  bool line_start() const override { return out_.empty() || out_.back() == '\n'; }
  void enter_heading(unsigned) override { out_ += "*"; }
  void leave_heading() override { out_ += "*"; }
  void enter_code(const std::string&) override { open_fence(""); }  // Slack shows no language
  void leave_code() override { close_fence(escaped(code_block())); }

  int enter_span(MD_SPANTYPE type, void* detail) override {
    if (in_link_) return 0;  // Slack shows no formatting inside a link's text
    out_ += span_marker(type);
    switch (type) {
      case MD_SPAN_CODE:
        open_code_span();
        break;
      case MD_SPAN_A:
        open_link(detail);
        break;
      default:
        break;
    }
    return 0;
  }

  int leave_span(MD_SPANTYPE type) override {
    if (in_link_ && type != MD_SPAN_A) return 0;
    out_ += span_marker(type);
    switch (type) {
      case MD_SPAN_CODE:
        in_code_span_ = false;
        if (code_.find('`') != std::string::npos)
          out_ += escape_slack_text(code_, after_word());
        else
          out_ += "`" + escaped(code_) + "`";
        break;
      case MD_SPAN_A: {
        in_link_ = false;
        const std::string text = out_.substr(link_text_start_);
        out_.resize(link_text_start_);
        if (is_autolink())
          out_ += "<" + link_url(link_href_) + ">";
        else
          out_ += "<" + link_url(link_href_) + "|" + text + ">";
        break;
      }
      default:
        break;
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
        out_ += escape_slack_text(text::decode_char_ref(s, decoded) ? std::string_view(decoded) : s,
                                  after_word());
        break;
      }
      default:
        if (in_link_) {
          link_raw_ += s;
          out_ += escaped(s);  // no formatting inside a link: nothing to keep literal
        } else {
          out_ += escape_slack_text(s, after_word());
        }
        break;
    }
    return 0;
  }
};

}  // namespace

std::string escape_slack_text(std::string_view text, bool after_word) {
  std::string out;
  out.reserve(text.size() + 8);
  bool word = after_word;
  for (char c : text) {
    // A formatting character at the start of a word could open a span: the zero-width space before it
    // makes it follow a "word" character, which Slack does not take as an opening.
    if ((c == '*' || c == '_' || c == '~' || c == '`') && !word) out += kZwsp;
    put_html_escaped(out, c, false);
    word = !is_space(c) && c != '(' && c != '"' && c != '\'';
  }
  return out;
}

std::string render_slack_mrkdwn(std::string_view markdown) { return Renderer().run(markdown); }

}  // namespace sigil::channels::slack
