// The sentinel line rules (spec 7.2, 7.3): whether a reply's tidied clean text says "stay silent".
//
// A decorated sentinel is one sentinel form with up to 3 decoration characters on each side (Unicode
// punctuation P*, or `*` `_` `~` and the backtick) and up to 64 spaces and tabs per side, between and around
// them. Forms: each bare word as written (`NO_REPLY`, `NO_MESSAGE`: exact case), and for each tag name
// `<name/>`, `<name />`, `<name>`, `<name></name>` with the name in any ASCII case. A tag form can only reach
// this stage written in code (`` `<no-reply/>` ``, the exception of 7.3 to 1.2); the recognizer removes real
// tag sentinels and calls suppress().
//
// The clean text is silent when
// (a) its last non-empty line is exactly one decorated sentinel, or
// (b) its first non-empty line begins with a decorated sentinel (left decoration, then the form), and the
//     first character after the form and any spaces or tabs is no lower-case letter (Ll) and no digit (Nd)
//     (OPEN_QUESTIONS.md, "Where the first-line check looks"; a line end counts as neither, and so does
//     a 65th space).
// Lines of fenced code blocks, fence lines included, are never sentinel lines (sentinels-043); fences are
// tracked on the text seen here (text::CodeTracker). Lines end at "\n"; a CR is a space.
//
// Streaming: text is passed on as soon as it cannot be part of a deciding line. Held back: the first
// non-empty line (and blank lines before it) until rule (b) decides it; a later line while it could still
// be exactly a decorated sentinel; a line that is one, with the blank lines after it, until a later
// non-empty line starts (then it is passed on) or finish() (then the text is silent and it is dropped).
// A held line is bounded by the decoration limits; blank lines are held up to kMaxHeldBlank bytes, past
// which they are passed on (the rules still apply; a sentinel found later is then a late one). Once
// silent, or suppressed, nothing more is passed on. Output and emitted() depend only on the input so far,
// never on how clean_text() calls split it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/tidier.h"
#include "sigil/text/byte_scan.h"
#include "sigil/text/code_tracker.h"

namespace sigil::parse {

// The sentinel set (7.1; configurable). A bare word, or tag name, that is empty or begins with a space or
// a decoration character is ignored, as are forms beyond the 64th.
struct SentinelWords {
  std::vector<std::string> bare{"NO_REPLY", "NO_MESSAGE"};
  std::vector<std::string> tags{"no-reply", "no_reply"};
};

class SentinelLines : public TextSink {
 public:
  static constexpr std::size_t kMaxSpaces = 64;       // spaces and tabs per side (7.2)
  static constexpr std::size_t kMaxDecoration = 3;    // decoration characters per side (7.2)
  static constexpr std::size_t kMaxHeldBlank = 4096;  // bytes of blank lines held around a candidate

  // The default words (7.1): their forms are built once per process and shared, so a judge per reply
  // costs no allocation.
  explicit SentinelLines(TextSink& out);
  SentinelLines(TextSink& out, const SentinelWords& words);
  SentinelLines(const SentinelLines&) = delete;
  SentinelLines& operator=(const SentinelLines&) = delete;

  // Tidied clean text, split anywhere.
  void clean_text(std::string_view bytes) override;
  // With stage 1's masks: line breaks and the code tracker's stops are read from them.
  void clean_run(std::string_view bytes, const text::stage1::MaskView& masks) override;
  // End of the text: applies the last-line rule, passes on what was held unless silent.
  void finish();
  // A line rule made the text silent.
  bool silent() const noexcept { return silent_; }
  // Silence was decided after some text had already been passed on (a late sentinel, 7.4).
  bool decided_late() const noexcept { return late_; }
  // Stop passing text on: a tag sentinel elsewhere made the reply silent. Drops what is held.
  void suppress();
  // Ready for the next text: the state of a new judge with the same sink and words, buffers' capacity kept.
  void reset() noexcept;
  // The recognizer's word on a run of input it is passing down through the tidier: its shadow code tracker
  // (spec 2.8) went over every byte of `run` and was in no fence there. Until the next call, a piece of clean
  // text that lies in that memory is those input bytes, so its lines after its first are whole input lines,
  // begun outside a fence in both trackers (the judge checks its own at the first line break): no fence can
  // open on them, every code span ends with its line, and this judge's tracker steps only the piece's first
  // line (not even that when it stands where that line can open or close no fence: mid-line in text, or at a
  // line's start before a byte that opens no lead) and its last. Empty: no such run. The recognizer clears it
  // before the memory can change.
  // `breaks`, when given and known, adds the shadow tracker's word on the run's lines
  // (CodeTracker::other_breaks(), fed `run` with line_killers() as its plain set): every line begun in the
  // run after a line break not listed there began with a byte that kills it, or with `-` or `*` and at most
  // one blank or `*` before one (left decoration and space: the line dies at that byte all the same). A
  // piece in that memory, once a dead line in it is decided and nothing held, then goes on to the next listed
  // break (or its end) without looking for the breaks between. The list must stay as it is until the next
  // call.
  void fence_free_run(std::string_view run, const text::CodeTracker::OtherBreaks* breaks = nullptr) noexcept {
    fence_free_ = run;
    breaks_ = breaks != nullptr && breaks->known ? breaks : nullptr;
  }
  // Pieces with masks, lying in a run told of by fence_free_run() with its breaks, whose dead lines were
  // passed on at once, up to a line that needs judging, on one look at the listed breaks (the general path's
  // pass_dead_lines() decided before anything moves; counted for tests).
  std::uint64_t told_pieces() const noexcept { return told_pieces_; }
  // For tests: off, such pieces go the general way (the path told pieces are compared with). On by default.
  void told_in_one(bool on) noexcept { told_on_ = on; }
  // The ASCII bytes that rule a line out as its first byte (FormSet::kills), for the recognizer's shadow
  // tracker (CodeTracker::plain_line_starts); lives as long as this judge.
  const text::ByteSet& line_killers() const noexcept { return set_->killers; }
  // Bytes the code tracker went past on the recognizer's word instead of stepping (counted for tests).
  std::uint64_t shared_code_bytes() const noexcept { return shared_code_bytes_; }
  // Short pieces without masks passed on as more of a dead line after one memchr (counted for tests).
  std::uint64_t short_dead_pieces() const noexcept { return short_dead_pieces_; }
  // Pieces with masks passed on as more of a dead line on one look at the masks, mid-line text with no
  // backtick and no line break (text::CodeTracker::feed_plain; counted for tests).
  std::uint64_t plain_dead_pieces() const noexcept { return plain_dead_pieces_; }
  // Lines that died at their first byte past spaces and decoration, found from the line starts in stage 1's
  // masks without looking for their breaks (counted for tests).
  std::uint64_t dead_lines_by_masks() const noexcept { return dead_lines_by_masks_; }
  // Bytes of dead lines passed on on the recognizer's word that each of their lines dies at its first byte
  // (fence_free_run's breaks), without looking for their breaks (counted for tests).
  std::uint64_t told_dead_bytes() const noexcept { return told_dead_bytes_; }
  // Bytes passed on so far.
  std::uint64_t emitted() const noexcept { return emitted_; }
  // Bytes held back right now.
  std::size_t held_bytes() const noexcept { return held_.size(); }

  // One written form of a sentinel, matched per line (shared, immutable).
  struct Form {
    std::string text;  // lower case when fold
    bool fold;         // ASCII case-insensitive (tag forms)
  };
  // The forms of a set of words, and the ASCII bytes that end a line's chances as its first character: no
  // space, decoration or first character of a form (shared, immutable).
  struct FormSet {
    std::vector<Form> forms;
    text::ByteSet killers;  // ASCII bytes that rule a line out when they stand first, past left_line's
    std::uint64_t left_line[2] = {0, 0};  // ASCII spaces and decoration: what may stand before a form
    bool kills(unsigned char b) const noexcept { return killers.contains(b); }  // ASCII only, as built
    bool left(unsigned char b) const noexcept { return b < 128 && ((left_line[b >> 6] >> (b & 63)) & 1); }
    // Whether the line starting at s[i] dies at its first byte that is no ASCII space or decoration: the
    // left side before it, however long, holds no form, so a killing byte there ends the line's chances
    // as surely as at the line's start (past the limits of 7.2 the left side itself kills). False when
    // the line needs judging, or its first such byte is not in s.
    bool dies_early(std::string_view s, std::size_t i) const noexcept {
      while (i < s.size() && left(static_cast<unsigned char>(s[i]))) ++i;
      return i < s.size() && kills(static_cast<unsigned char>(s[i]));
    }
  };

 private:
  // A way the line so far could be: a complete form, then right decoration.
  struct Right {
    std::uint8_t deco;
    std::uint8_t spaces;
  };

  void judge_run(std::string_view s, const text::stage1::MaskView& masks);
  std::size_t told_piece(std::string_view s, const text::stage1::MaskView& masks);
  void step(unsigned char b);
  void on_code_point(char32_t cp, std::string_view bytes);
  void advance_form(std::string_view bytes);
  void line_end();
  void new_line();
  void first_content();
  void start();
  void die();
  void silence();
  void release_all();
  void emit(std::string_view s);

  TextSink& out_;
  std::size_t pass_dead_lines(std::string_view s, std::size_t i, const text::stage1::MaskView& masks);
  std::size_t dead_line_starts(std::string_view s, std::size_t i, const text::stage1::MaskView& masks,
                               bool& fresh);
  std::size_t told_dead_lines(std::string_view s, std::size_t i, bool& fresh);
  void track_code(std::string_view s, const text::stage1::MaskView& masks);

  // The default words' set is one static that outlives every judge: set_ points at it without a shared_ptr
  // copy (an atomic increment and decrement per parser). Other words' set is owned (shared between copies).
  std::shared_ptr<const FormSet> own_set_;
  const FormSet* set_ = nullptr;
  std::uint64_t all_forms_ = 0;
  text::CodeTracker code_;
  std::string_view fence_free_;                             // see fence_free_run()
  const text::CodeTracker::OtherBreaks* breaks_ = nullptr;  // see fence_free_run()
  std::uint64_t told_dead_bytes_ = 0;
  std::uint64_t shared_code_bytes_ = 0;
  std::uint64_t short_dead_pieces_ = 0;
  std::uint64_t dead_lines_by_masks_ = 0;
  std::uint64_t plain_dead_pieces_ = 0;
  std::uint64_t told_pieces_ = 0;
  bool told_on_ = true;

  std::string held_;            // a suffix of the input not yet passed on
  std::size_t line_start_ = 0;  // where the current line begins in held_
  bool holding_ = true;         // bytes of the current line go to held_ (else straight out)
  bool first_decided_ = false;  // rule (b) is settled
  bool first_line_ = false;     // the current line is the first non-empty one
  bool last_exact_ = false;     // the last non-empty line so far is exactly a decorated sentinel
  bool silent_ = false;
  bool late_ = false;
  bool suppressed_ = false;
  bool finished_ = false;
  std::uint64_t emitted_ = 0;

  // The current line.
  bool dead_ = false;       // cannot be a sentinel line (nor the start of one, for rule (b))
  bool line_fresh_ = true;  // no byte of the line has been stepped
  bool nonempty_ = false;   // a character other than a space has been seen
  bool code_line_ = false;  // inside a fence, or a fence line
  bool left_alive_ = true;  // the line so far is decoration and spaces that may precede a form
  std::uint8_t left_deco_ = 0;
  std::uint8_t left_spaces_ = 0;
  std::uint64_t form_mask_ = 0;  // forms that still match, and are longer than form_pos_
  std::size_t form_pos_ = 0;
  std::array<Right, 8> rights_{};
  std::uint8_t rights_len_ = 0;
  bool look_pending_ = false;  // rule (b): a form ended; looking for the next character past spaces
  bool look_ok_ = false;       // rule (b) holds for the line
  std::uint8_t look_spaces_ = 0;
  unsigned char cp_bytes_[4] = {};
  unsigned cp_len_ = 0;
  unsigned cp_need_ = 0;
};

}  // namespace sigil::parse
