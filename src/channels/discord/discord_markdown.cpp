#include "sigil/channels/discord/discord_markdown.h"

#include <algorithm>
#include <string>
#include <vector>

#include "channels/markdown_walk.h"
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

class Renderer final : public MarkdownWalk {
 public:
  Renderer() : MarkdownWalk({.bullet = "- ", .bold_open = "**", .bold_close = "**"}) {}
  std::string run(std::string_view markdown) {
    if (!walk(markdown))
      return escape_discord_text(markdown, true);  // md4c gives up only on memory exhaustion
    return trimmed();
  }

 private:
  // Whether the next character written starts a line (after the quote's "> ").
  bool line_start() const {
    if (out_.empty()) return true;
    if (quote_depth_ > 0 && out_.size() >= 2 && out_.compare(out_.size() - 2, 2, "> ") == 0)
      return out_.size() == 2 || out_[out_.size() - 3] == '\n';
    return out_.back() == '\n';
  }
  void line_break() override {
    out_ += '\n';
    if (quote_depth_ > 0) out_ += "> ";
  }
  // Writes s, giving every line after a line break the quote's prefix.
  void put(std::string_view s) {
    for (char c : s) {
      if (c == '\n')
        line_break();
      else
        out_ += c;
    }
  }
  void enter_quote() override {
    if (quote_depth_++ == 0) {
      if (!line_start()) line_break();
      out_ += "> ";
    }
  }
  void leave_quote() override {
    if (--quote_depth_ == 0) {
      // Drop the empty quoted lines the quote's last block left.
      while (out_.size() >= 3 && out_.compare(out_.size() - 3, 3, "\n> ") == 0) out_.resize(out_.size() - 3);
    }
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
  void enter_code(const std::string& lang) override {
    out_ += "```" + lang;
    line_break();
    in_code_block_ = true;
    code_.clear();
  }
  void leave_code() override {
    if (!code_.empty() && code_.back() == '\n') code_.pop_back();
    // "```" inside would end the block on Discord: a zero-width space keeps the backticks apart.
    for (std::size_t at = 0; (at = code_.find("```", at)) != std::string::npos; at += 2)
      code_.insert(at + 1, "\xE2\x80\x8B");
    in_code_block_ = false;
    put(code_);
    line_break();
    out_ += "```";
  }

  int enter_span(MD_SPANTYPE type, void* detail) override {
    out_ += span_marker(type);
    switch (type) {
      case MD_SPAN_CODE:
        in_code_span_ = true;
        code_.clear();
        break;
      case MD_SPAN_A: {
        const auto* d = static_cast<const MD_SPAN_A_DETAIL*>(detail);
        link_href_ = attribute(d->href);
        link_raw_.clear();
        in_link_ = true;
        link_text_start_ = out_.size();
        break;
      }
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
        // An autolink's text is its URL (md4c adds the scheme to "www." links and "mailto:" to addresses).
        if (link_raw_ == link_href_ || "http://" + link_raw_ == link_href_ ||
            "mailto:" + link_raw_ == link_href_) {
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
    if (in_code_block_ || in_code_span_) {
      code_ += s;
      return 0;
    }
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
  bool in_code_block_ = false, in_code_span_ = false;
  std::string code_;
  bool in_link_ = false;
  std::string link_href_, link_raw_;
  std::size_t link_text_start_ = 0;
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
