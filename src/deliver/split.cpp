#include "sigil/deliver/split.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "sigil/text/ascii.h"
#include "sigil/text/code_tracker.h"
#include "sigil/text/unicode.h"
#include "sigil/text/utf8.h"

namespace sigil::deliver {

namespace {

using text::ascii::is_space;
using text::ascii::trim;
using text::ascii::trim_left;
using text::ascii::trim_right;

// Units of the unit (in utf8.h's sense) of `len` bytes: a 4-byte unit is always a well-formed supplementary
// code point (ill-formed maximal subparts are at most 3 bytes), two UTF-16 code units.
std::size_t units_of(std::size_t len, TextUnit unit) {
  switch (unit) {
    case TextUnit::Bytes:
      return len;
    case TextUnit::CodePoints:
      return 1;
    case TextUnit::Utf16:
      return len == 4 ? 2 : 1;
  }
  return len;
}

bool ends_with(std::string_view s, std::size_t i, std::string_view tail) {
  return i >= tail.size() && s.substr(i - tail.size(), tail.size()) == tail;
}

// CJK full stops end a sentence without a space after them.
bool ends_cjk_sentence(std::string_view s, std::size_t i) {
  return ends_with(s, i, "\xE3\x80\x82") || ends_with(s, i, "\xEF\xBC\x81") ||
         ends_with(s, i, "\xEF\xBC\x9F");
}

enum Category : unsigned char { kParagraph, kLine, kSentence, kSpace, kFenceLine, kCategories };

}  // namespace

std::size_t text_units(std::string_view s, TextUnit unit) noexcept {
  if (unit == TextUnit::Bytes) return s.size();
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = text::unit_length(s, i);
    n += units_of(len, unit);
    i += len;
  }
  return n;
}

std::optional<SplitCut> split_once(std::string_view text, std::size_t limit, TextUnit unit) {
  if (limit == 0) return std::nullopt;

  // Code point boundaries of the longest prefix that fits, with their unit counts, and whether a grapheme
  // cluster may end there. One code point past the prefix is decoded too (for the break before it).
  struct Boundary {
    std::size_t pos, units;
    bool grapheme_break;
  };
  std::vector<Boundary> bounds;
  bounds.push_back({0, 0, false});
  utf8proc_int32_t gstate = 0;
  char32_t prev_cp = 0;
  std::size_t units = 0;
  std::size_t fit = 0;  // P: bytes of the longest prefix within the limit
  bool overflow = false;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len = 0;
    const char32_t cp = text::decode_at(text, i, &len);
    const bool brk = i == 0 || utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(prev_cp),
                                                                static_cast<utf8proc_int32_t>(cp), &gstate);
    bounds.back().grapheme_break = brk;
    prev_cp = cp;
    units += units_of(len, unit);
    if (units > limit) {
      overflow = true;
      break;
    }
    i += len;
    fit = i;
    bounds.push_back({i, units, false});
  }
  if (!overflow) return std::nullopt;

  const auto units_at = [&](std::size_t pos) {
    // bounds is sorted by pos; candidates are always boundaries.
    auto it = std::lower_bound(bounds.begin(), bounds.end(), pos,
                               [](const Boundary& b, std::size_t p) { return b.pos < p; });
    return it == bounds.end() ? units : it->units;
  };

  // Scan the prefix with the code tracker, remembering the last cut of each kind.
  std::array<std::size_t, kCategories> last{};  // 0: none
  std::array<std::string, kCategories> reopen_of;
  std::array<std::string, kCategories> closer_of;
  text::CodeTracker tracker;
  std::size_t line_start = 0;
  bool line_blank = true;
  std::size_t first_content = std::string_view::npos;
  // The fence we are in: its opening line [open_start, open_end), and whether a code line has content.
  bool in_fence = false;
  std::size_t open_start = 0, open_end = 0;
  bool fence_content = false;
  std::string closer;
  for (std::size_t i = 1; i <= fit; ++i) {
    const char c = text[i - 1];
    tracker.step(static_cast<unsigned char>(c));
    if (!is_space(c) && first_content == std::string_view::npos) first_content = i - 1;
    const bool fence_now = tracker.in_fence();
    if (fence_now && !in_fence) {
      open_start = line_start;
      open_end = 0;
      fence_content = false;
    }
    in_fence = fence_now;
    if (in_fence && open_end != 0 && !is_space(c)) fence_content = true;
    const bool has_head = first_content != std::string_view::npos;
    if (c == '\n') {
      const bool was_blank = line_blank;
      line_start = i;
      line_blank = true;
      if (in_fence && open_end == 0) {
        open_end = i;
        // The opening run's length is known once its line ends.
        const auto st = tracker.snapshot();
        closer.assign(1, '\n');
        closer.append(st.fence_len, static_cast<char>(st.fence_char));
      } else if (!in_fence && has_head) {
        if (was_blank) last[kParagraph] = i;
        last[kLine] = i;
      } else if (in_fence && fence_content && units_at(i) + closer.size() <= limit) {
        // Only worth it when the reopened fence line leaves room for code in the next message.
        const std::size_t reopen_units = text_units(text.substr(open_start, open_end - open_start), unit);
        if ((reopen_units + closer.size()) * 2 <= limit) {
          last[kFenceLine] = i;
          reopen_of[kFenceLine] = std::string(text.substr(open_start, open_end - open_start));
          closer_of[kFenceLine] = closer;
        }
      }
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\r') line_blank = false;
    if (in_fence || !has_head) continue;
    if (tracker.in_code()) continue;
    if ((c == ' ' || c == '\t') && i >= 2) {
      const char p = text[i - 2];
      if (p == '.' || p == '!' || p == '?') last[kSentence] = i;
      last[kSpace] = i;
    } else if (ends_cjk_sentence(text, i)) {
      last[kSentence] = i;
    }
  }

  // The byte right after the prefix: a space or line break there is a cut at the limit itself.
  if (fit < text.size() && !in_fence && first_content != std::string_view::npos) {
    const char c = text[fit];
    if (c == '\n') {
      last[kLine] = fit;
    } else if ((c == ' ' || c == '\t') && !tracker.in_code()) {
      const char p = fit > 0 ? text[fit - 1] : ' ';
      if (p == '.' || p == '!' || p == '?') last[kSentence] = fit;
      last[kSpace] = fit;
    }
  }

  const auto make = [&](std::size_t at, Category cat) {
    SplitCut cut;
    cut.consumed = at;
    cut.head = std::string(trim_right(text.substr(0, at)));
    if (cat == kFenceLine) {
      cut.head += closer_of[cat];
      cut.reopen = reopen_of[cat];
      cut.inside_fence = true;
    }
    return cut;
  };
  const std::size_t half = fit / 2;
  for (const Category cat : {kParagraph, kLine, kSentence, kSpace, kFenceLine}) {
    if (last[cat] != 0 && last[cat] >= half) return make(last[cat], cat);
  }
  for (const Category cat : {kParagraph, kLine, kSentence, kSpace, kFenceLine}) {
    if (last[cat] != 0) return make(last[cat], cat);
  }

  // A hard cut: inside a fence that has started its code, close and reopen it; prefer a grapheme boundary.
  SplitCut cut;
  cut.hard = true;
  std::size_t room = limit;
  const bool fence_cut =
      in_fence && open_end != 0 &&
      (text_units(text.substr(open_start, open_end - open_start), unit) + closer.size()) * 2 <= limit;
  if (fence_cut) room = limit - closer.size();
  std::size_t hard = 0;
  std::size_t any_boundary = 0;
  for (auto it = bounds.rbegin(); it != bounds.rend(); ++it) {
    if (it->pos == 0 || it->units > room) continue;
    if (fence_cut && it->pos <= open_end) break;
    if (any_boundary == 0) any_boundary = it->pos;
    if (it->grapheme_break) {
      hard = it->pos;
      break;
    }
  }
  if (hard == 0) hard = any_boundary;
  const bool closes = fence_cut && hard > open_end;
  if (hard == 0) hard = fit != 0 ? fit : text::unit_length(text, 0);  // progress even below one code point
  cut.consumed = hard;
  std::string_view head = text.substr(0, hard);
  if (!trim_right(head).empty()) head = trim_right(head);
  cut.head = std::string(head);
  if (closes) {
    cut.head += closer;
    cut.reopen = std::string(text.substr(open_start, open_end - open_start));
    cut.inside_fence = true;
  }
  return cut;
}

std::string rest_after(std::string_view text, const SplitCut& cut) {
  std::string_view rest = text.substr(cut.consumed);
  if (cut.reopen.empty()) return std::string(trim_left(rest));
  std::string out = cut.reopen;
  out.append(rest);
  return out;
}

std::vector<std::string> split_text(std::string_view text, std::size_t limit, TextUnit unit) {
  std::vector<std::string> out;
  std::string rest(trim(text));
  while (!rest.empty()) {
    auto cut = split_once(rest, limit, unit);
    if (!cut) {
      out.push_back(std::move(rest));
      break;
    }
    out.push_back(std::move(cut->head));
    rest = rest_after(rest, *cut);  // already ends without whitespace
  }
  return out;
}

}  // namespace sigil::deliver
