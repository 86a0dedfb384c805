#include "sigil/channels/discord/discord_markdown.h"

#include <algorithm>
#include <string>
#include <vector>

#include "channels/chat_markdown_walk.h"
#include "sigil/text/char_refs.h"

namespace sigil::channels::discord {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// What opens and closes an emphasis span in Discord's syntax ("" for the other spans).
std::string_view span_marker(MD_SPANTYPE type) {
  switch (type) {
    case MD_SPAN_EM:
      return "*";
    case MD_SPAN_STRONG:
      return "**";
    case MD_SPAN_DEL:
      return "~~";
    case MD_SPAN_U:
      return "__";
    default:
      return "";
  }
}

// The longest run of backticks in s.
std::size_t longest_backtick_run(std::string_view s) {
  std::size_t best = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

class Renderer final : public ChatMarkdownWalk {
 public:
  Renderer() : ChatMarkdownWalk({.bullet = "- ", .bold_open = "**", .bold_close = "**"}) {}
  std::string run(std::string_view markdown) {
    if (!walk(markdown))
      return escape_discord_text(markdown, true);  // md4c gives up only on memory exhaustion
    return trimmed();
  }

 private:
  // Whether the next character written starts a line (after the quote's "> ").
  bool line_start() const override {
    if (out_.empty()) return true;
    if (quote_depth_ > 0 && out_.size() >= 2 && out_.compare(out_.size() - 2, 2, "> ") == 0)
      return out_.size() == 2 || out_[out_.size() - 3] == '\n';
    return out_.back() == '\n';
  }
  void enter_heading(unsigned level) override {
    // Discord shows three heading sizes; smaller ones are bold lines.
    heading_bold_ = level > 3;
    out_ += heading_bold_ ? std::string("**") : std::string(level, '#') + " ";
  }
  void leave_heading() override {
    if (heading_bold_) out_ += "**";
    heading_bold_ = false;
  }
  void enter_code(const std::string& lang) override { open_fence(lang); }
  void leave_code() override { close_fence(code_block()); }

  int enter_span(MD_SPANTYPE type, void* detail) override {
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
    out_ += span_marker(type);
    switch (type) {
      case MD_SPAN_CODE: {
        in_code_span_ = false;
        const std::string ticks(longest_backtick_run(code_) + 1, '`');
        const bool pad = !code_.empty() && (code_.front() == '`' || code_.back() == '`');
        out_ += ticks + (pad ? " " : "") + code_ + (pad ? " " : "") + ticks;
        break;
      }
      case MD_SPAN_A:
        in_link_ = false;
        if (is_autolink()) {
          // The URL as written: Discord links it by itself, and escaping would break it.
          out_.resize(link_text_start_);
          out_ += link_raw_;
        } else {
          out_.insert(link_text_start_, 1, '[');
          // "<url>" keeps a ")" in the URL from ending the link.
          out_ +=
              "](" +
              (link_href_.find_first_of("() ") != std::string::npos ? "<" + link_href_ + ">" : link_href_) +
              ")";
        }
        break;
      default:
        break;
    }
    return 0;
  }

  int text(MD_TEXTTYPE type, std::string_view s) override {
    if (gathered(s)) return 0;
    switch (type) {
      case MD_TEXT_NULLCHAR:  // U+FFFD: nothing to escape, and not part of a link's URL as written
        out_ += s;
        break;
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR:
        line_break();
        break;
      case MD_TEXT_ENTITY: {
        std::string decoded;
        out_ += escape_discord_text(text::decode_char_ref(s, decoded) ? std::string_view(decoded) : s,
                                    line_start());
        break;
      }
      default:
        if (in_link_) link_raw_ += s;
        out_ += escape_discord_text(s, line_start());
        break;
    }
    return 0;
  }

  bool heading_bold_ = false;
};

}  // namespace

std::string escape_discord_text(std::string_view text, bool line_start) {
  std::string out;
  out.reserve(text.size() + 8);
  bool at_start = line_start;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    bool escape = false;
    switch (c) {
      case '\\':
      case '*':
      case '_':
      case '~':
      case '`':
      case '|':
      case '[':
      case ']':
        escape = true;
        break;
      case '>':
      case '#':
        escape = at_start;
        break;
      case '-':
        escape = at_start && (next == ' ' || next == '#');
        break;
      case '<':
        // <@id> mentions, <#id> channels, <:name:id> emoji, </cmd:id> commands, <t:…> times, <a:…:id>.
        escape = next == '@' || next == '#' || next == ':' ||
                 ((next == 't' || next == 'a') && i + 2 < text.size() && text[i + 2] == ':');
        if (next == '/') {
          // "</name:id>" only: an HTML-like end tag is left alone.
          const std::size_t close = text.find('>', i);
          escape = close != std::string_view::npos &&
                   text.substr(i, close - i).find(':') != std::string_view::npos;
        }
        break;
      default:
        break;
    }
    if (at_start && is_digit(c)) {
      // "1. " at a line start is a list item on Discord.
      std::size_t j = i;
      while (j < text.size() && is_digit(text[j])) ++j;
      if (j + 1 < text.size() && text[j] == '.' && text[j + 1] == ' ') {
        out.append(text.substr(i, j - i));
        out += "\\.";
        i = j;
        at_start = false;
        continue;
      }
    }
    if (escape) out += '\\';
    out += c;
    at_start = c == '\n' || (at_start && (c == ' ' || c == '\t'));
  }
  return out;
}

std::string render_discord_markdown(std::string_view markdown) { return Renderer().run(markdown); }

}  // namespace sigil::channels::discord
