#include "sigil/channels/signal/signal_text.h"

#include <algorithm>
#include <utility>

#include "channels/chat_markdown_walk.h"
#include "sigil/text/char_refs.h"

namespace sigil::channels::signal {
namespace {

// A style over bytes [start, end) of the UTF-8 text, before it is counted in UTF-16 units.
struct ByteRange {
  std::size_t start = 0, end = 0;
  std::string style;
};

std::string_view span_style(MD_SPANTYPE type) {
  switch (type) {
    case MD_SPAN_EM:
      return "ITALIC";
    case MD_SPAN_STRONG:
      return "BOLD";
    case MD_SPAN_DEL:
      return "STRIKETHROUGH";
    case MD_SPAN_CODE:
      return "MONOSPACE";
    default:
      return "";
  }
}

class Renderer final : public ChatMarkdownWalk {
 public:
  // Table header cells get no bold: a range cannot be written as marks (the walk writes marks as text).
  Renderer() : ChatMarkdownWalk({.bullet = "\xE2\x80\xA2 ", .bold_open = "", .bold_close = ""}) {}

  bool run(std::string_view markdown) {
    if (!walk(markdown)) return false;  // md4c gives up only on memory exhaustion
    out_ = trimmed();
    return true;
  }
  std::string& text() { return out_; }
  std::vector<ByteRange>& ranges() { return ranges_; }

 private:
  bool line_start() const override { return out_.empty() || out_.back() == '\n'; }

  void open(std::string_view style) { open_.push_back({out_.size(), 0, std::string(style)}); }
  void close() {
    ByteRange r = std::move(open_.back());
    open_.pop_back();
    r.end = out_.size();
    if (r.end > r.start) ranges_.push_back(std::move(r));
  }

  void enter_heading(unsigned) override { open("BOLD"); }
  void leave_heading() override { close(); }
  void enter_code(const std::string&) override {
    in_code_block_ = true;
    code_.clear();
  }
  void leave_code() override {
    in_code_block_ = false;
    open("MONOSPACE");
    put(code_block());
    close();
  }

  int enter_span(MD_SPANTYPE type, void* detail) override {
    if (in_link_) return 0;
    switch (type) {
      case MD_SPAN_CODE:
        open_code_span();
        break;
      case MD_SPAN_A:
        open_link(detail);
        break;
      default:
        if (!span_style(type).empty()) open(span_style(type));
        break;
    }
    return 0;
  }

  int leave_span(MD_SPANTYPE type) override {
    if (in_link_ && type != MD_SPAN_A) return 0;
    switch (type) {
      case MD_SPAN_CODE:
        in_code_span_ = false;
        open("MONOSPACE");
        out_ += code_;
        close();
        break;
      case MD_SPAN_A:
        in_link_ = false;
        if (is_autolink()) {
          out_.resize(link_text_start_);
          out_ += link_href_;
        } else if (link_raw_ != link_href_) {
          out_ += " (" + link_href_ + ")";
        }
        break;
      default:
        if (!span_style(type).empty()) close();
        break;
    }
    return 0;
  }

  int text(MD_TEXTTYPE type, std::string_view s) override {
    if (gathered(s)) return 0;
    switch (type) {
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR:
        line_break();
        break;
      case MD_TEXT_ENTITY: {
        std::string decoded;
        const std::string_view shown = text::decode_char_ref(s, decoded) ? std::string_view(decoded) : s;
        if (in_link_) link_raw_ += shown;
        out_ += shown;
        break;
      }
      default:
        if (in_link_) link_raw_ += s;
        put(s);
        break;
    }
    return 0;
  }

  std::vector<ByteRange> open_;
  std::vector<ByteRange> ranges_;
};

// Bytes of a UTF-8 sequence that starts with `lead` (1 for a stray continuation byte).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset in `s` where `units` UTF-16 code units end.
std::size_t byte_offset(std::string_view s, std::size_t units) {
  std::size_t i = 0, u = 0;
  while (i < s.size() && u < units) {
    const std::size_t n = sequence_length(static_cast<unsigned char>(s[i]));
    u += n == 4 ? 2 : 1;
    i += n;
  }
  return std::min(i, s.size());
}

std::vector<TextStyle> counted(std::string_view text, const std::vector<ByteRange>& ranges) {
  std::vector<TextStyle> out;
  for (const ByteRange& r : ranges) {
    const std::size_t end = std::min(r.end, text.size());
    if (r.start >= end) continue;
    const std::size_t start = utf16_units(text.substr(0, r.start));
    out.push_back({start, utf16_units(text.substr(r.start, end - r.start)), r.style});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TextStyle& a, const TextStyle& b) { return a.start < b.start; });
  return out;
}

// Where the part that starts at `from` ends: at most `max_bytes` on, at a break in its second half if any.
std::size_t cut_at(std::string_view s, std::size_t from, std::size_t max_bytes) {
  if (s.size() - from <= max_bytes) return s.size();
  std::size_t end = from + max_bytes;
  while (end > from && is_continuation(s[end])) --end;  // s[end] starts the next character
  if (end == from)
    end = from + sequence_length(static_cast<unsigned char>(s[from]));  // cannot happen for 2000
  const std::string_view part = s.substr(from, end - from);
  const std::size_t half = part.size() / 2;
  for (std::string_view brk : {"\n\n", "\n", " "}) {
    const std::size_t at = part.rfind(brk);
    if (at != std::string_view::npos && at >= half) return from + at;
  }
  return end;
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t'; }

}  // namespace

std::string TextStyle::wire() const {
  return std::to_string(start) + ":" + std::to_string(length) + ":" + style;
}

std::size_t utf16_units(std::string_view utf8) {
  std::size_t units = 0;
  for (char c : utf8) {
    const auto b = static_cast<unsigned char>(c);
    if (is_continuation(c)) continue;
    units += b >= 0xF0 ? 2 : 1;
  }
  return units;
}

SignalText render_signal_text(std::string_view markdown) {
  Renderer r;
  if (!r.run(markdown)) return {nuls_replaced(markdown), {}};
  SignalText t;
  t.styles = counted(r.text(), r.ranges());
  t.text = std::move(r.text());
  return t;
}

std::vector<SignalText> split_signal_text(const SignalText& t, std::size_t max_bytes) {
  std::vector<SignalText> parts;
  if (t.text.empty()) return parts;
  if (t.text.size() <= max_bytes) {
    parts.push_back(t);
    return parts;
  }
  std::vector<ByteRange> ranges;
  for (const TextStyle& s : t.styles) {
    const std::size_t start = byte_offset(t.text, s.start);
    ranges.push_back({start, byte_offset(t.text, s.start + s.length), s.style});
  }
  const std::string_view s = t.text;
  std::size_t from = 0;
  while (from < s.size()) {
    const std::size_t end = cut_at(s, from, max_bytes);
    std::vector<ByteRange> mine;
    for (const ByteRange& r : ranges) {
      const std::size_t a = std::max(r.start, from), b = std::min(r.end, end);
      if (a < b) mine.push_back({a - from, b - from, r.style});
    }
    SignalText part;
    part.text = std::string(s.substr(from, end - from));
    part.styles = counted(part.text, mine);
    if (!part.text.empty()) parts.push_back(std::move(part));
    from = end;
    while (from < s.size() && is_space(s[from])) ++from;
  }
  return parts;
}

}  // namespace sigil::channels::signal
