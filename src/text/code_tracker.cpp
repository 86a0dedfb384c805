#include "sigil/text/code_tracker.h"

#include <cstring>
#include <type_traits>

#include "sigil/text/ascii.h"
#include "sigil/text/byte_scan.h"

namespace sigil::text {
namespace {

// Where in its line the tracker is. Lead phases come first so at_line_start() is one compare.
enum Phase : std::uint8_t {
  kLead,       // spaces, tabs and `>` only; a list marker may still come
  kListNum,    // digits of a possible ordered list marker
  kListMark,   // a list marker that still needs its space or tab
  kListSpace,  // after a list marker and its space: only more spaces or a run may keep the lead
  kLeadRun,    // a run of run_char right after the lead that may open (3+) or close a fence
  kOpenRun,    // the run that opened the fence, still counting its length
  kCloseTail,  // inside a fence, after a run that closes it if only blanks follow to '\n'
  kText,       // outside fences, past the lead: only backticks and '\n' matter
  kTickRun,    // outside fences, a backtick run past the lead
  kFenceText,  // inside a fence, past the lead: only '\n' matters
};

static_assert(std::is_trivially_copyable_v<CodeTracker::State>, "snapshots are plain copies");

constexpr ByteSet kTextStops{"`\n"};
// A piece this short is stepped byte by byte (skip_plain() would only find its stops with a scan's set-up).
constexpr std::size_t kStepShort = 8;
// From a stop this far from the piece's end on, text is walked along the mask words (text_walk()); a shorter
// rest holds a stop or two, which a search each costs less than the walk's call and set-up.
constexpr std::size_t kWalkFrom = 64;

using ascii::is_blank;
using ascii::is_digit;
inline void bump(std::uint32_t& n) noexcept { n += n != UINT32_MAX; }

}  // namespace

void CodeTracker::step(unsigned char b) noexcept {
  State& s = s_;
  s.fence_event = false;
  if (b == '\n') {
    // A lead run never sees its end byte, so a fence whose closing run ends the line closes here.
    const bool closes =
        s.phase == kCloseTail || (s.phase == kLeadRun && s.fence_len != 0 && s.run_len >= s.fence_len);
    if (closes) s.fence_len = 0, s.fence_char = 0;
    s.line_bytes = 0;
    s.run_len = 0;
    s.span_len = 0;
    s.run_char = 0;
    s.phase = kLead;
    return;
  }
  ++s.line_bytes;
  switch (s.phase) {
    case kLead:
      if (is_blank(b) || b == '>') return;
      if (is_digit(b)) {
        s.phase = kListNum;
        return;
      }
      if (b == '-' || b == '*' || b == '+') {
        s.phase = kListMark;
        return;
      }
      break;
    case kListNum:
      if (is_digit(b)) return;
      if (b == '.' || b == ')') {
        s.phase = kListMark;
        return;
      }
      break;
    case kListMark:
      if (is_blank(b)) {
        s.phase = kListSpace;
        return;
      }
      break;
    case kListSpace:
      if (is_blank(b)) return;
      break;
    case kLeadRun:
      if (b == s.run_char) {
        bump(s.run_len);
        if (s.run_len == 3 && s.fence_len == 0) {
          s.fence_char = b;
          s.fence_len = 3;
          s.phase = kOpenRun;
          s.fence_event = true;
          ++fences_opened_;
        }
        return;
      }
      if (s.fence_len != 0) {  // inside a fence only the fence's character starts a lead run
        s.phase = s.run_len >= s.fence_len && (is_blank(b) || b == '\r') ? kCloseTail : kFenceText;
      } else if (b == '`') {  // after 1 or 2 tildes: a mid-line backtick run starts
        s.phase = kTickRun;
        s.run_len = 1;
      } else {
        if (s.run_char == '`') s.span_len = s.run_len;  // 1 or 2 backticks: a span
        s.phase = kText;
      }
      return;
    case kOpenRun:
      if (b == s.fence_char)
        bump(s.fence_len);
      else
        s.phase = kFenceText;
      return;
    case kCloseTail:
      if (!is_blank(b) && b != '\r') s.phase = kFenceText;
      return;
    case kText:
      if (b == '`') s.phase = kTickRun, s.run_len = 1;
      return;
    case kTickRun:
      if (b == '`') {
        bump(s.run_len);
        return;
      }
      // Opens a span, closes one of exactly its length, or is part of the span's text.
      if (s.span_len == 0)
        s.span_len = s.run_len;
      else if (s.span_len == s.run_len)
        s.span_len = 0;
      s.phase = kText;
      return;
    case kFenceText:
    default:
      return;
  }
  // Still in the lead, and b cannot continue it: it is either a lead run or the line's first content.
  if ((b == '`' || b == '~') && (s.phase == kLead || s.phase == kListSpace) &&
      (s.fence_len == 0 || b == s.fence_char)) {
    s.phase = kLeadRun;
    s.run_char = b;
    s.run_len = 1;
  } else if (s.fence_len != 0) {
    s.phase = kFenceText;
  } else if (b == '`') {
    s.phase = kTickRun;
    s.run_len = 1;
  } else {
    s.phase = kText;
  }
}

std::size_t CodeTracker::skip_plain(std::string_view s) noexcept {
  std::size_t n;
  if (s_.phase == kText) {
    n = kTextStops.find_first(s);
  } else if (s_.phase == kFenceText) {
    const void* nl = std::memchr(s.data(), '\n', s.size());
    n = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - s.data()) : ByteSet::npos;
  } else {
    return 0;
  }
  if (n == ByteSet::npos) n = s.size();
  if (n != 0) {
    s_.line_bytes += n;
    s_.fence_event = false;
  }
  return n;
}

// Outside a fence at a line break (s[i] == '\n', phase kText): the break, the blank lines after it and the
// next line's first byte when that byte can only be text (line_start()), with the states step() would reach,
// without its dispatch per byte. Prose ends most lines this way. Returns where to go on.
[[gnu::always_inline]] inline std::size_t CodeTracker::line_breaks(std::string_view s,
                                                                   std::size_t i) noexcept {
  std::size_t j = i + 1;
  while (j < s.size() && s[j] == '\n') ++j;
  // step('\n') from kText: no fence closes; the line's counters and runs start over.
  s_.line_bytes = 0;
  s_.run_len = 0;
  s_.span_len = 0;
  s_.run_char = 0;
  s_.fence_event = false;
  s_.phase = kLead;
  ++lines_in_bulk_;
  if (j == s.size()) return j;
  return line_start(s, j, true);
}

// At a line's very start outside a fence (the state a line break there leaves) with s[j] its first byte:
// that byte when it can only be text, or a list marker or `*` with the blank or byte after it that ends the
// lead, as step() would take them; otherwise nothing (returns j). `listed`: the line break is s[j - 1] (a
// line begun in s), listed (other_breaks()) when the line begins with a lead byte or a byte outside the plain
// set, unless it begins with `-` or `*`, then at most one blank or `*`, then a byte of the set.
[[gnu::always_inline]] inline std::size_t CodeTracker::line_start(std::string_view s, std::size_t j,
                                                                  bool listed) noexcept {
  const auto first = static_cast<unsigned char>(s[j]);
  if (kLeadBytes.contains(first)) {
    if (first == '-' || first == '*' || first == '+') {
      // A list item (`- item`) or emphasis (`**Day`): step() would take the marker (kListMark), then one
      // blank (kListSpace) and the text's first byte, or at once a byte that ends the lead (the second `*`),
      // both into kText. In straight-line code; a backtick, tilde, second blank or line break there (a run
      // that may open a fence or span, more lead) is left to step().
      std::size_t k = j + 1;
      if (k < s.size() && is_blank(static_cast<unsigned char>(s[k]))) ++k;
      if (k < s.size()) {
        const auto b = static_cast<unsigned char>(s[k]);
        if (!is_blank(b) && b != '`' && b != '~' && b != '\n') {
          // `-` and `*` are decoration, which may stand before a sentinel form as a blank may: after them a
          // byte of the plain set rules the line out as surely as at its start (other_breaks()).
          std::size_t at = k;
          if (b == '*' && k == j + 1 && k + 1 < s.size()) ++at;  // `**Day`, `-*x`: one more decoration
          if (listed && (first == '+' || !plain_starts_->contains(static_cast<unsigned char>(s[at]))))
            other_break(s.data() + j - 1);
          s_.line_bytes = k + 1 - j;
          s_.fence_event = false;
          s_.phase = kText;
          ++markers_in_bulk_;
          return k + 1;
        }
      }
    }
    if (listed) other_break(s.data() + j - 1);
    return j;
  }
  if (listed && !plain_starts_->contains(first)) other_break(s.data() + j - 1);
  s_.line_bytes = 1;  // step(b) from kLead for a byte that opens no lead: the line's text begins
  s_.fence_event = false;
  s_.phase = kText;
  return j + 1;
}

void CodeTracker::feed(std::string_view s) noexcept {
  breaks_.known = false;
  if (s.size() <= kStepShort) {  // a few bytes: stepping them costs less than setting up a scan
    for (const char c : s) step(static_cast<unsigned char>(c));
    return;
  }
  std::size_t i = 0;
  while (i < s.size()) {
    i += skip_plain(s.substr(i));
    if (i == s.size()) break;
    if (s[i] == '\n' && s_.phase == kText)
      i = line_breaks(s, i);
    else
      step(static_cast<unsigned char>(s[i++]));
  }
}

void CodeTracker::feed(std::string_view s, const stage1::MaskView& masks) noexcept {
  static_assert(kText == kTextPhase && kTickRun == kTickRunPhase && kLead == 0 &&
                    kListSpace == kListSpacePhase && kLeadRun == kLeadRunPhase &&
                    kFenceText == kFenceTextPhase,
                "the header tests these phases");
  if (!masks) return feed(s);
  std::size_t i = 0;
  while (i < s.size()) {
    if (s_.phase == kText) {
      const std::size_t stop = masks.find(stage1::kBackticksOrNewlines, i);
      if (stop == s.size()) {  // no stop: only the line's byte count moves (no walk to set up)
        s_.line_bytes += s.size() - i;
        s_.fence_event = false;
        return;
      }
      if (s.size() - stop >= kWalkFrom) {
        i = text_walk(s, i, TextStops(masks, stage1::kBackticksOrNewlines, stop));
        continue;
      }
      // A short rest (a streamed piece): stop by stop, as cheap as setting up the walk.
      s_.line_bytes += stop - i;
      s_.fence_event = false;
      i = stop;
      if (s[i] == '\n') {
        i = line_breaks(s, i);
        continue;
      }
      step(static_cast<unsigned char>(s[i++]));
      continue;
    }
    if (s_.phase == kLead && s_.line_bytes == 0 && s_.fence_len == 0) {
      // A line's very start (the piece begins where a line does): its first bytes without step().
      if (const std::size_t r = line_start(s, i, false); r != i) {
        i = r;
        continue;
      }
    }
    // Elsewhere: what skip_plain() does, with the stops taken from the masks, then a step.
    std::size_t stop = i;
    if (s_.phase == kFenceText) stop = masks.find(stage1::kNewlines, i);
    if (stop != i) {
      s_.line_bytes += stop - i;
      s_.fence_event = false;
      i = stop;
    }
    if (i == s.size()) break;
    if (s[i] == '\n') other_break(s.data() + i);  // a stepped break: the line after it is not known plain
    step(static_cast<unsigned char>(s[i++]));
  }
}

// feed(s, masks) from s[i] (i < s.size()) in kText, the phase most of a reply is read in: the backticks and
// line breaks are visited along one walk of the mask words (`walk`, placed at i), and the two stops prose is
// made of are taken here with the states step() would reach: line breaks (line_breaks(), inline here) and a
// backtick run ended by a byte on the same line (it opens a span, closes one of its length, or is span text).
// The line's byte count is kept as an offset from the position and written once. The walk goes on while the
// tracker stays in kText, else it returns where the general loop steps on (a line's lead; also at the end of
// s, or inside a backtick run that s ends in).
std::size_t CodeTracker::text_walk(std::string_view s, std::size_t i, TextStops walk) noexcept {
  const std::size_t n = s.size();
  std::uint64_t base = s_.line_bytes - i;  // the line's byte count after byte p - 1 is base + p (mod 2^64)
  s_.fence_event = false;                  // no fence opens in kText
  for (;;) {
    const std::size_t q = walk.next();
    if (q == n) {
      s_.line_bytes = base + n;
      return n;
    }
    if (s[q] == '\n') {  // the break, blank lines after it, and the next line's first byte if it is text
      const std::size_t r = line_breaks(s, q);
      if (s_.phase != kText) return r;
      base = s_.line_bytes - r;
      walk.seek(r);
      continue;
    }
    // A backtick run from q (kTickRun), ended by the byte after it unless that is a line break or past s.
    std::size_t r = q + 1;
    while (r < n && s[r] == '`') ++r;
    s_.run_len = r - q < UINT32_MAX ? static_cast<std::uint32_t>(r - q) : UINT32_MAX;
    if (r == n) {
      s_.phase = kTickRun;
      s_.line_bytes = base + n;
      return n;
    }
    if (s[r] == '\n') {  // the break ends the line (and any span): the next stop
      walk.seek(r);
      continue;
    }
    // step(s[r]) from kTickRun: the run opens a span, closes one of exactly its length, or is the span's
    // text.
    if (s_.span_len == 0)
      s_.span_len = s_.run_len;
    else if (s_.span_len == s_.run_len)
      s_.span_len = 0;
    walk.seek(r + 1);
  }
}

bool CodeTracker::feed_blanks(std::size_t size, std::size_t last_break) noexcept {
  if (s_.phase != kText) return false;  // kText is outside fences (kFenceText is the fence's own)
  breaks_.known = false;
  s_.fence_event = false;
  if (last_break == static_cast<std::size_t>(-1)) {  // blanks mid-line: step() only counts them there
    s_.line_bytes += size;
    return true;
  }
  // step('\n') from kText (no fence to close), then blanks and breaks in the lead: only the count moves.
  s_.line_bytes = size - last_break - 1;
  s_.run_len = 0;
  s_.span_len = 0;
  s_.run_char = 0;
  s_.phase = kLead;
  return true;
}

bool CodeTracker::at_line_start() const noexcept { return s_.phase <= kListSpace; }

void CodeTracker::mark_run_content() noexcept {
  const std::uint64_t line_bytes = s_.line_bytes;
  step('x');
  s_.line_bytes = line_bytes;
}

}  // namespace sigil::text
