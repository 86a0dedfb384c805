// Tracks which bytes of a reply are code (spec 1.2): fenced blocks and inline code spans.
//
// Fed one byte at a time with step(), or in bulk with skip_plain()/feed(); both give the same states.
// The grammar, exactly:
// - A line's lead is any mix of spaces, tabs and `>` quote markers, then optionally one list marker (`-`,
//   `*`, `+`, or digits then `.` or `)`) followed by at least one space or tab, then more spaces or tabs.
// - Outside a fence, a run of 3 or more backticks, or 3 or more tildes, right after the lead opens a fence of
//   that character and length; the rest of that line is its info string (anything goes).
// - Inside a fence, a line whose lead is followed by a run of the fence character at least as long as the
//   opening run, then only spaces, tabs or `\r` up to `\n`, closes it. Nothing else does; an unclosed fence
//   runs to the end.
// - Outside a fence, any other run of N backticks (mid-line, or after the lead with N < 3) opens an inline
//   span, which ends after the next run of exactly N backticks on the same line, or at the line's end.
//   A run's length is known when a byte that is not a backtick (or the line end) follows it.
// - Lines end at `\n`; `\r` is an ordinary byte except after a closing run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "sigil/text/byte_scan.h"
#include "sigil/text/stage1.h"

namespace sigil::text {

class CodeTracker {
 public:
  // Everything the tracker knows; copy it to try bytes speculatively and restore() to undo them.
  struct State {
    std::uint64_t line_bytes = 0;
    std::uint32_t fence_len = 0;  // length of the opening run; 0 outside fences
    std::uint32_t run_len = 0;    // backticks (or lead tildes) in the current run; saturates
    std::uint32_t span_len = 0;   // opening run of the open inline span; 0 when none
    unsigned char fence_char = 0;
    unsigned char run_char = 0;
    std::uint8_t phase = 0;
    bool fence_event = false;
    friend bool operator==(const State&, const State&) = default;
  };

  void step(unsigned char b) noexcept;
  // Consumes, as step() would, the longest prefix of s whose bytes cannot change the code state (only
  // the line's byte count moves), and returns its length. Nonzero only mid-line: outside fences it stops
  // at '`' or '\n', inside a fence at '\n'. The caller then step()s the byte it stopped at.
  std::size_t skip_plain(std::string_view s) noexcept;
  // step() over every byte of s, using skip_plain() for the long stretches.
  void feed(std::string_view s) noexcept;
  // The same, finding the stretches' ends (backticks, line breaks) in stage 1's masks of s instead of
  // scanning the bytes again. Same states as feed(s).
  void feed(std::string_view s, const stage1::MaskView& masks) noexcept;
  // feed(s, masks) for the commonest streamed piece, inline so that it pays no call: when the tracker is
  // mid-line outside a fence and s (not empty, with masks) holds no backtick and no line break, only the
  // line's byte count moves. Then it is fed and true is returned (the caller knows s held no line break);
  // otherwise nothing changes and false is returned (feed() then; callers whose pieces are seldom plain
  // call feed() at once).
  bool feed_plain(std::string_view s, const stage1::MaskView& masks) noexcept {
    // (A piece that starts with a line break, as the text between markup on separate lines does, is refused
    // before the masks are looked at.)
    if (!masks || s_.phase != kTextPhase || s.empty() || s[0] == '\n' ||
        masks.find(stage1::kBackticksOrNewlines, 0) != s.size())
      return false;
    s_.line_bytes += s.size();
    s_.fence_event = false;
    return true;
  }

  // Whether a next byte that is not '`', '~', '\n', space or tab (a `<` or `[`, say) would be code.
  // Exact also while a run is in progress, since such a byte ends the run: after a mid-line backtick
  // run it is true unless the run closes the open span; after a lead run of 1 or 2 backticks it is true
  // (they open a span), after 1 or 2 lead tildes false.
  // (Inline: the recognizer asks before every `<` and `[`.)
  bool in_code() const noexcept {
    if (s_.fence_len != 0) return true;
    switch (s_.phase) {
      case kLeadRunPhase:
        return s_.run_char == '`';
      case kTextPhase:
        return s_.span_len != 0;
      case kTickRunPhase:
        return s_.span_len != s_.run_len;
      default:
        return false;
    }
  }
  // Inside a fence: from the step that sees the third character of the opening run through the line
  // break that ends the closing line.
  bool in_fence() const noexcept { return s_.fence_len != 0; }
  // The line so far holds only its lead (spaces, tabs, `>`, a list marker, possibly still partial), so a
  // fence run could still begin on it.
  bool at_line_start() const noexcept;
  // True just after the step that made the current line an opening fence line (its third backtick or
  // tilde after the lead, outside a fence). Spec 2.8 judges this line a trigger from its first byte.
  bool fence_line_started() const noexcept { return s_.fence_event; }
  // Bytes of the current line consumed so far (0 right after '\n').
  std::uint64_t bytes_since_line_start() const noexcept { return s_.line_bytes; }

  // As feed() of a run of `size` spaces, tabs and line breaks whose last line break is at `last_break`
  // (npos: none), when the tracker stands past a line's lead outside a fence with no backtick run in
  // progress: there a blank moves only the line's byte count and a line break closes nothing, so the state
  // after the run is known without stepping it (the blanks between two removed tags). Returns false, having
  // done nothing, in any other state; the caller then feeds the bytes. lines_in_bulk() does not count these
  // breaks, and other_breaks() says nothing after it (known is false), as after feed() without masks.
  bool feed_blanks(std::size_t size, std::size_t last_break) noexcept;

  // Whether nothing from a next byte b to the current line's break can open or close a fence: outside a
  // fence past the line's lead (text, or a backtick run there), or at the very start of a line (only blanks
  // and `>` before) outside a fence when b opens no lead. The line break then leaves the state every break
  // outside a fence leaves, whatever the bytes between: end_text_line() gives it without them.
  bool line_is_text(unsigned char b) const noexcept {
    return s_.phase == kTextPhase || s_.phase == kTickRunPhase ||
           (s_.phase == 0 && s_.fence_len == 0 && !kLeadBytes.contains(b));
  }
  // As feed() of the rest of the current line and its line break, when line_is_text() held for the line's
  // next byte (a caller that knows where the line ends and needs only the state after it: the sentinel
  // judge on the recognizer's word).
  void end_text_line() noexcept {
    s_.line_bytes = 0;
    s_.run_len = 0;
    s_.span_len = 0;
    s_.run_char = 0;
    s_.phase = 0;
    s_.fence_event = false;
  }

  // Something that is not whitespace stood here (markup that was removed rather than fed): acts as
  // step() on a neutral non-space byte, so no fence can open or close on this line and a run ends, but
  // the line's byte count does not move.
  // (Inline for the states removed markup leaves most: mid-line text or code, and a line's lead, where the
  // byte only ends the lead.)
  void mark_line_content() noexcept {
    s_.fence_event = false;
    if (s_.phase == kTextPhase || s_.phase == kFenceTextPhase) return;
    if (s_.phase <= kListSpacePhase) {
      s_.phase = s_.fence_len != 0 ? kFenceTextPhase : kTextPhase;
      return;
    }
    mark_run_content();
  }

  // Fences opened by step() and feed() since construction or reset(), counting steps later undone by
  // restore(): when the count has not moved over a feed that began outside a fence, no byte of it was in
  // one (the recognizer tells the sentinel judge so; SentinelLines::fence_free_run).
  std::uint64_t fences_opened() const noexcept { return fences_opened_; }
  // Line breaks outside fences that feed() took in bulk (with the blank lines after them and the next line's
  // first byte when it can only be text) instead of stepping them: for tests that the path is taken.
  std::uint64_t lines_in_bulk() const noexcept { return lines_in_bulk_; }
  // Of those, lines whose list marker or leading `*` feed() took with the break, the lead's steps in
  // straight-line code (for tests that the path is taken).
  std::uint64_t markers_in_bulk() const noexcept { return markers_in_bulk_; }

  // What a caller may learn from the line starts feed(s, masks) reads anyway (the sentinel judge: which lines
  // of a run die at their first byte). After start_listing() and feed(s, masks): `at` lists, in order,
  // pointers into s to the line breaks after which a line may begin that is not known plain: every break the
  // feed stepped, and the last break of each run of breaks it took in bulk whose next line starts with a lead
  // byte or a byte outside the set given to plain_line_starts() (none by default), unless it starts with
  // `-` or `*`, then at most one space, tab or `*`, then a byte of that set (a list item, `**bold`).
  // Every other line of s begun after a line break in s began with a byte of that set, or with such a lead
  // before one (for the sentinel judge `-`, `*` and blanks are decoration and space that may stand before a
  // form, so the line dies at the byte of the set all the same). `known` is false after feed(s) without
  // masks, or when more than kOtherBreaks such breaks came (then nothing is said). A caller that does not
  // read the list (most feeds: short pieces, the judge's own tracker) does not start one, and pays nothing
  // for it.
  static constexpr std::size_t kOtherBreaks = 16;
  struct OtherBreaks {
    const char* at[kOtherBreaks] = {};
    std::size_t count = 0;
    bool known = false;
  };
  // The set must outlive the tracker, or the next call.
  void plain_line_starts(const ByteSet& set) noexcept { plain_starts_ = &set; }
  // Empties the list: other_breaks() then speaks of the next feed(s, masks) (feeds after it add to it).
  void start_listing() noexcept {
    breaks_.count = 0;
    breaks_.known = true;
  }
  const OtherBreaks& other_breaks() const noexcept { return breaks_; }

  State snapshot() const noexcept { return s_; }
  void restore(const State& s) noexcept { s_ = s; }
  void reset() noexcept {
    s_ = State{};
    fences_opened_ = 0;
    lines_in_bulk_ = 0;
    markers_in_bulk_ = 0;
    breaks_ = {};
  }

 private:
  // The phase past a line's lead, outside fences, where only backticks and line breaks matter
  // (code_tracker.cpp names the phases; it checks this value).
  static constexpr std::uint8_t kTextPhase = 7;
  static constexpr std::uint8_t kListSpacePhase = 3;
  static constexpr std::uint8_t kLeadRunPhase = 4;
  static constexpr std::uint8_t kTickRunPhase = 8;
  static constexpr std::uint8_t kFenceTextPhase = 9;
  void mark_run_content() noexcept;  // mark_line_content() in a run (lead, opening, closing or backtick run)
  // What may begin a line's lead or a lead run (step()'s kLead cases), and '\n': a line that starts with any
  // other byte is text from that byte on.
  static constexpr ByteSet kLeadBytes{" \t>0123456789-*+`~\n"};

  std::size_t line_breaks(std::string_view s, std::size_t i) noexcept;
  std::size_t line_start(std::string_view s, std::size_t j, bool listed) noexcept;
  using TextStops = stage1::MaskWalk<std::remove_const_t<decltype(stage1::kBackticksOrNewlines)>>;
  std::size_t text_walk(std::string_view s, std::size_t i, TextStops walk) noexcept;

  State s_;
  std::uint64_t fences_opened_ = 0;
  std::uint64_t lines_in_bulk_ = 0;
  std::uint64_t markers_in_bulk_ = 0;
  void other_break(const char* at) noexcept {
    if (breaks_.count < kOtherBreaks)
      breaks_.at[breaks_.count++] = at;
    else
      breaks_.known = false;
  }

  OtherBreaks breaks_;
  const ByteSet* plain_starts_ = &kNoBytes;

  static constexpr ByteSet kNoBytes{};
};

}  // namespace sigil::text
