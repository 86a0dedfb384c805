// Clean-text tidying (spec 10.1, 10.3): what is left of a reply once markup is cut out of it.
//
// The recognizer hands the Tidier the reply as a stream of surviving text and gaps (places where markup was
// removed). The Tidier closes the gaps the way a person editing the text would, and passes the result on
// as soon as no later input can change it.
//
// The rules, as implemented (a "blank" is a space, a tab, or a CR not followed by LF; a line ends at "\n"
// or "\r\n"):
// - Blanks next to a gap, and blanks between gaps, form one cluster with them. A cluster becomes nothing
//   when it starts its line, ends its line (or the reply), or stands right before closing punctuation
//   (`. , ; : ! ? ) ] }`); otherwise one space if it held any blank, else nothing.
// - Emphasis: a maximal run of 1-3 of one of `*` `_` `~` right before a gap group (gaps with nothing
//   between them) that holds a Directive gap goes with it, together with a run of the same character and
//   exactly the same length right after the group, when the first run follows a line start, a blank,
//   punctuation (Unicode P*) or another gap, and the second precedes a line end, a blank, punctuation, a gap
//   or the end of the reply. Blanks around the two runs then join the cluster. Otherwise both runs stay.
// - A line that a gap touched and that is left empty, blank, or holding only a list marker (`-`, `*`, `+`,
//   1-9 digits then `.` or `)`, with blanks around it) disappears with its line break; the blank lines
//   right before and right after it then merge into one: the first of them, kept as written.
// - The clean text is trimmed: whitespace (space, tab, CR, LF) at its start and at its end is dropped.
// - Everything else passes unchanged: blank lines and trailing blanks that no gap touched, line endings.
// - A whitespace run (all held bytes) longer than `whitespace_limit` is released as written, and so is
//   the rest of that run: the line it is on can no longer disappear.
//
// Streaming (spec 11.2, 11.3): the output, and emitted() between calls, depend only on the input so far,
// never on how text() calls split it. The Tidier holds back only what a future gap or the end could still
// change: trailing blanks, line breaks and blank lines after the last text, the current line while it holds
// only blanks and a list marker, an emphasis run of at most 3 bytes (plus, after a gap, at most 3 bytes of
// the run after it and one code point), and a CR waiting for its LF. held_bytes() never exceeds
// whitespace_limit + 32. Ordinary text is passed on in bulk: a few sink calls per text() call, never one
// per byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sigil/text/stage1.h"

namespace sigil::parse {

// What a gap stands for. Only a removed directive takes emphasis runs with it (10.1).
enum class GapKind : unsigned char {
  Directive,  // a removed directive
  Other,      // wrappers, comments, orphan close tags, sentinels, hidden regions, say tags
};

// Receives clean text. Pieces are arbitrary cuts of the text (they may split a UTF-8 sequence); only their
// concatenation means anything.
class TextSink {
 public:
  virtual ~TextSink() = default;
  virtual void clean_text(std::string_view bytes) = 0;
  // The same, with stage 1's masks of the bytes (text/stage1.h) for a sink that looks for line breaks or
  // backticks in them; a sink that does not simply takes the text.
  virtual void clean_run(std::string_view bytes, const text::stage1::MaskView& masks) {
    (void)masks;
    clean_text(bytes);
  }
};

class Tidier {
 public:
  explicit Tidier(TextSink& out, std::size_t whitespace_limit = 4096);
  Tidier(const Tidier&) = delete;
  Tidier& operator=(const Tidier&) = delete;

  // Surviving reply text: valid UTF-8 as a whole, split anywhere (even inside a code point).
  void text(std::string_view bytes);
  // The same, with stage 1's masks of the bytes: a run passed on unchanged carries them to the sink.
  void text(std::string_view bytes, const text::stage1::MaskView& masks);
  // The same as text(bytes) for bytes that are only spaces, tabs and line breaks (no CR), which the caller
  // has seen (the blanks between two removed tags): taken in one pass, without looking for plain text.
  void blanks(std::string_view bytes);
  // Markup was removed here.
  void gap(GapKind kind);
  // End of the reply: resolves what is held and trims the end. Later calls are ignored.
  void finish();
  // Ready for the next reply: the state of a new Tidier with the same sink and limit, buffers' capacity kept.
  void reset() noexcept;

  // Bytes passed to the sink so far.
  std::uint64_t emitted() const noexcept { return emitted_; }
  // Bytes held back right now (spec 11.3).
  std::size_t held_bytes() const noexcept;
  // text() calls that found the piece plain from its start and passed it on, up to its last plain byte,
  // unchanged in one call with its masks (the streaming fast path), counted for tests.
  std::uint64_t direct_runs() const noexcept { return direct_runs_; }
  // Runs of two or more spaces, tabs and line breaks (of one or more when given to blanks()) taken in one
  // pass instead of stepped (counted for tests).
  std::uint64_t blank_runs() const noexcept { return blank_runs_; }
  // Bytes blank_run() looked at, taken or not: never more than the bytes fed (each is offered once).
  std::uint64_t blank_scanned() const noexcept { return blank_scanned_; }
  // Lines emptied by removals that blank_run() dropped with their break without normal_newline() (counted
  // for tests).
  std::uint64_t emptied_lines() const noexcept { return emptied_lines_; }
  // Content bytes after a gap (or after held trailing blanks) that settled what was held without being
  // stepped, so the text from them on went in bulk (counted for tests).
  std::uint64_t settled() const noexcept { return settled_; }
  // Of the same kind, the first bytes of lines that showed nothing yet (after a line break, blank lines,
  // indentation), which made the line show text without being stepped (counted for tests; not in settled()).
  std::uint64_t settled_lines() const noexcept { return settled_lines_; }
  // Pieces that ended in one blank after their bulk run, held without being stepped (counted for tests).
  std::uint64_t trailing_blanks() const noexcept { return trailing_blanks_; }
  // Pieces that ended in one line break after their bulk run, taken as step() takes it without stepping it
  // (counted for tests).
  std::uint64_t trailing_breaks() const noexcept { return trailing_breaks_; }
  // For tests: off, such bytes (these four counts) are stepped (the general path the bulk one is compared
  // with). On by default.
  void settle_in_bulk(bool on) noexcept { settle_on_ = on; }
  // text() calls whose first bytes settle() released (blanks) and that then passed those and the plain run
  // after them on in one call with masks of none (neither holds a byte any stage-1 mask marks) instead of
  // gathering them for a call without masks (counted for tests).
  std::uint64_t joined_runs() const noexcept { return joined_runs_; }
  // For tests: off, they are gathered and passed on without masks as before. On by default.
  void join_in_bulk(bool on) noexcept { join_on_ = on; }
  // text() calls that passed what they gathered before a plain run (blank lines and the byte that made the
  // line show text; a blank settle() released) together with the run, in one call (with masks when the
  // piece had them and they cover both), instead of passing the gathered bytes on alone without masks
  // (counted for tests). Taken or not by the bytes alone: the sink's pieces split alike with masks or not.
  std::uint64_t lead_runs() const noexcept { return lead_runs_; }
  // For tests: off, the gathered bytes go on alone as before. On by default.
  void lead_in_bulk(bool on) noexcept { lead_on_ = on; }
  // Calls that passed gathered pieces on (without masks), counted for tests.
  std::uint64_t gathered_calls() const noexcept { return gathered_calls_; }

 private:
  enum class Phase : unsigned char {
    Normal,   // no gap open
    Cluster,  // after a gap, until the next non-blank byte settles it
    After,    // after a gap that may take the emphasis run before it: counting the run after it
  };
  // What came right before the current byte, as far as emphasis runs care.
  enum class Ctx : unsigned char { LineStart, Blank, Punct, Boundary, Other };
  // What the current line's kept bytes amount to: only blanks, a possible ordered-list number, a list
  // marker (with blanks), or anything else.
  enum class Shape : unsigned char { Empty, Digits, Marker, Content };
  enum class Next : unsigned char { LineEnd, Close, Other };

  void text_stepped(std::string_view bytes, const text::stage1::MaskView& masks);
  void step(unsigned char b);
  void dispatch_blank(unsigned char b);
  void dispatch_newline(bool crlf);
  void dispatch_run(unsigned char b);
  void dispatch_content(unsigned char b);
  bool after_step(unsigned char b);
  void end_after();
  void after_success();
  void after_fail();
  void fail_before_run();
  void resolve(Next next);
  void normal_blank(unsigned char b);
  void normal_newline(bool crlf);
  void normal_run(unsigned char b);
  void normal_content(unsigned char b);
  void commit_pending();
  void keep(std::string_view bytes);
  void advance_shape(unsigned char b) noexcept;
  void drop_emptied_line() noexcept;
  void reset_line() noexcept;
  bool at_line_start() const noexcept { return shape_ != Shape::Content && line_.empty(); }
  bool plain() const noexcept;
  void check_limit();
  void release_all();
  void emit_pre();
  void emit(std::string_view s, const text::stage1::MaskView& masks = {});
  void flush();
  void pass_direct(std::string_view bulk, const text::stage1::MaskView& masks);
  void pass_joined();
  bool pass_with_lead(std::string_view bytes, std::size_t i, std::size_t len,
                      const text::stage1::MaskView& masks);
  void pass_lead(std::string_view joined, const text::stage1::MaskView& masks);
  void note(unsigned char b) noexcept;
  void resync(std::string_view bulk) noexcept;
  void resync_slow(std::string_view bulk) noexcept;
  static const std::array<Ctx, 128> kAsciiCtx;  // note()'s ctx_ for each ASCII byte
  std::size_t blank_run(std::string_view s, std::size_t& scanned);
  // Nothing held can make a run of spaces, tabs and line breaks more than that (blank_run()).
  bool blanks_may_run() const noexcept {
    return !cr_ && phase_ != Phase::After && run_len_ == 0 && !overflow_;
  }
  void take_blanks(std::string_view s);
  void take_blank_lines(std::string_view s);
  bool settle(unsigned char b);
  [[gnu::noinline]] bool trailing_break();
  bool settle_line(unsigned char b);

  TextSink& out_;
  std::size_t limit_;
  std::uint64_t emitted_ = 0;
  std::uint64_t direct_runs_ = 0;
  std::uint64_t blank_runs_ = 0;
  std::uint64_t blank_scanned_ = 0;
  std::uint64_t emptied_lines_ = 0;
  std::uint64_t settled_ = 0;
  bool settle_on_ = true;
  std::uint64_t joined_runs_ = 0;
  std::uint64_t gathered_calls_ = 0;
  bool join_on_ = true;
  std::uint64_t lead_runs_ = 0;
  std::uint64_t settled_lines_ = 0;
  std::uint64_t trailing_blanks_ = 0;
  std::uint64_t trailing_breaks_ = 0;
  bool settled_breaks_ = false;  // the last settle() released line breaks (settle_line(): pre_)
  bool lead_on_ = true;
  // Small emitted pieces, passed on at the end of each call or when the next would not fit. The storage is
  // the tidier's own (inside the parser's state), so a fresh parser's first gathered piece allocates
  // nothing; every piece gathered is shorter than one block (64 bytes), far below its size.
  static constexpr std::size_t kGatherMax = 1024;
  char gather_[kGatherMax];  // not initialised: only [0, gathered_) is ever read
  std::size_t gathered_ = 0;
  std::string_view gathered() const noexcept { return {gather_, gathered_}; }
  void gather(std::string_view s) noexcept;
  bool started_ = false;  // a non-whitespace byte has been emitted (leading trim)
  bool finished_ = false;

  // Held bytes, in output order: pre_, line_, ws_, the held run, the run after a gap, cp_buf_, a CR.
  std::string pre_;             // line break of the last shown line (with its trailing blanks), blank lines
  std::size_t blank1_end_ = 0;  // end of the first blank line in pre_
  bool has_blank_ = false;
  bool merge_ = false;  // a removed line touches the blank lines in pre_: they merge into one
  std::string line_;    // kept bytes of the current line while its Shape is not Content
  Shape shape_ = Shape::Empty;
  unsigned digits_ = 0;
  bool line_gap_ = false;       // a gap touched the current line
  std::string ws_;              // trailing blanks; in a cluster, the blanks around its gaps
  unsigned char run_char_ = 0;  // the held emphasis run (before a gap, or still open)
  unsigned run_len_ = 0;
  unsigned char track_char_ = 0;  // the emphasis run in progress, held or not
  unsigned track_len_ = 0;
  Phase phase_ = Phase::Normal;
  bool group_directive_ = false;  // the gap group after the held run holds a directive
  unsigned after_len_ = 0;        // run bytes seen after the gap (Phase::After)
  unsigned char cp_buf_[4] = {};  // Phase::After: the code point after that run, being collected
  unsigned cp_buf_len_ = 0;
  unsigned cp_buf_need_ = 0;
  bool cr_ = false;        // a CR waiting for its LF
  bool overflow_ = false;  // a whitespace run passed the limit and is passed on as written

  Ctx ctx_ = Ctx::LineStart;
  char32_t cp_ = 0;  // decoder for ctx_
  unsigned cp_need_ = 0;
};

// Defined here so that both halves of the tidier (tidier.cpp, tidier_machine.cpp) inline them: each is on
// the path of every blank run between markup.
inline std::size_t Tidier::held_bytes() const noexcept {
  return pre_.size() + line_.size() + ws_.size() + run_len_ + after_len_ + cp_buf_len_ + (cr_ ? 1 : 0);
}

inline void Tidier::drop_emptied_line() noexcept {
  merge_ = true;
  if (has_blank_) pre_.resize(blank1_end_);
}

inline void Tidier::reset_line() noexcept {
  line_.clear();
  ws_.clear();
  shape_ = Shape::Empty;
  digits_ = 0;
  line_gap_ = false;
}

}  // namespace sigil::parse
