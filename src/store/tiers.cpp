// request-tier texts without a model: the first sentence, the first paragraph, or everything.
#include <string>

#include "sigil/store/store.h"
#include "sigil/text/ascii.h"

namespace sigil::store {
namespace {

constexpr std::size_t kSentenceMax = 200;
constexpr std::size_t kParagraphMax = 2000;
constexpr std::string_view kEllipsis = "\u2026";

using text::ascii::is_space;
using text::ascii::trim;

// Cuts s to at most max bytes without splitting a UTF-8 sequence, marking the cut.
std::string cap(std::string s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  while (!s.empty() && is_space(s.back())) s.pop_back();
  s += kEllipsis;
  return s;
}

// The end of the first sentence: after ". ", "! ", "? " (or one of them at the end), after a fullwidth
// "。！？", or at the first line break.
std::size_t sentence_end(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n' || c == '\r') return i;
    if ((c == '.' || c == '!' || c == '?') && (i + 1 == s.size() || is_space(s[i + 1]))) return i + 1;
    for (const std::string_view stop : {"\u3002", "\uFF01", "\uFF1F"})
      if (s.substr(i, stop.size()) == stop) return i + stop.size();
  }
  return s.size();
}

// The end of the first paragraph: the first line break followed by a line holding only whitespace.
std::size_t paragraph_end(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n') continue;
    std::size_t j = i + 1;
    while (j < s.size() && s[j] != '\n' && is_space(s[j])) ++j;
    if (j < s.size() && s[j] == '\n') return i;
  }
  return s.size();
}

}  // namespace

std::string tier_text(std::string_view text, int level) {
  const std::string_view t = trim(text);
  if (level >= 3) return std::string(t);
  if (level == 2) return cap(std::string(trim(t.substr(0, paragraph_end(t)))), kParagraphMax);
  return cap(std::string(trim(t.substr(0, sentence_end(t)))), kSentenceMax);
}

}  // namespace sigil::store
