#include "sigil/parse/tidier.h"

#include <array>
#include <cstring>
#include <string_view>

#include "sigil/text/unicode.h"
#include "tidier_bytes.h"

// How it works: step() is a byte-at-a-time state machine whose every decision depends only on the bytes
// and gaps seen so far, and which emits a byte the moment no later input can change it. That alone makes
// the output and emitted() independent of how text() is split. For speed, text() skips the machine over the
// longest stretch it can prove the machine would pass on unchanged (plain_prefix), then steps the rest.
// This file: the input side (pieces, blanks, gaps, the end), the output side and the context the next gap
// reads; the machine itself (step() and what it calls) is tidier_machine.cpp.

namespace sigil::parse {
namespace {

using namespace tidier_bytes;

// What Tidier::blank_run takes: spaces, tabs and line breaks (a CR needs the byte after it).
constexpr bool is_blank_or_newline(unsigned char b) noexcept { return b == ' ' || b == '\t' || b == '\n'; }

// A byte that, on a line that already shows text and with nothing held, is simply passed on.
constexpr bool is_plain(unsigned char b) noexcept { return !is_markup_space(b) && !is_run_char(b); }

// Every byte any stage-1 mask marks (text/stage1.h): a piece with none of them has all-zero masks.
constexpr auto kAnyMask = [](const text::stage1::BlockMasks& m) noexcept {
  return m.lt | m.bracket | m.newline | m.backtick;
};

constexpr std::size_t kDirectEmit = 64;  // pieces this long go to the sink directly

// Whether the bytes of one line, from its start, reach Shape::Content (see Tidier::advance_shape).
bool line_shows_content(std::string_view line) noexcept {
  enum { Empty, Digits, Marker } shape = Empty;
  unsigned digits = 0;
  for (unsigned char b : line) {
    switch (shape) {
      case Empty:
        if (is_line_blank(b)) break;
        if (b == '-' || b == '+' || b == '*') {
          shape = Marker;
          break;
        }
        if (is_digit(b)) {
          shape = Digits;
          digits = 1;
          break;
        }
        return true;
      case Digits:
        if (is_digit(b) && digits < 9) {
          ++digits;
          break;
        }
        if (b == '.' || b == ')') {
          shape = Marker;
          break;
        }
        return true;
      case Marker:
        if (is_line_blank(b)) break;
        return true;
    }
  }
  return false;
}

struct Prefix {
  std::size_t length = 0;
  bool has_newline = false;
};

// Called in the plain state (a line that shows text, nothing held, no gap open). Returns the longest prefix
// of s that step() would pass on unchanged and after which it would be plain again: it ends at a plain byte
// on a line that shows text. Without a gap, nothing in between is ever changed: held blanks, runs, blank
// lines and CRs are all released as written. Linear: each byte is looked at at most three times.
Prefix plain_prefix(std::string_view s, const text::stage1::MaskView& masks) noexcept {
  std::size_t end = s.size();
  while (end > 0) {
    std::size_t k = end;
    while (k > 0 && !is_plain(static_cast<unsigned char>(s[k - 1]))) --k;
    if (k == 0) return {};
    const std::size_t q = k - 1;
    std::size_t ls = q;
    if (masks) {  // the line's start from stage 1's line breaks, not a walk back over the line
      const std::size_t nl = masks.rfind(text::stage1::kNewlines, q);
      ls = nl == text::stage1::MaskView::npos ? 0 : nl + 1;
    } else if (const void* nl = ::memrchr(s.data(), '\n', q); nl != nullptr) {
      // No masks (a released body, a gathered piece): memrchr, not a walk back over the line's bytes.
      ls = static_cast<std::size_t>(static_cast<const char*>(nl) - s.data()) + 1;
    } else {
      ls = 0;
    }
    if (ls == 0) return {q + 1, false};  // the line began before s, and it shows text
    if (line_shows_content(s.substr(ls, q + 1 - ls))) return {q + 1, true};
    end = ls;  // nothing on this line up to q shows text, so nothing before q on it does either
  }
  return {};
}

}  // namespace

Tidier::Tidier(TextSink& out, std::size_t whitespace_limit) : out_(out), limit_(whitespace_limit) {}

// What note() sets ctx_ to for an ASCII byte (note() and resync() are on every piece's path, and
// text::is_punctuation is a call). Built at compile time (constinit) from the same bits as is_punctuation:
// a table built by dynamic initialisation could be read, zeroed, by another translation unit's start-up code
// before it is built.
constinit const std::array<Tidier::Ctx, 128> Tidier::kAsciiCtx = [] {
  std::array<Ctx, 128> t{};
  for (unsigned c = 0; c < 128; ++c) {
    if (c == '\n')
      t[c] = Ctx::LineStart;
    else if (is_blank(static_cast<char>(c)) || c == '\r')
      t[c] = Ctx::Blank;
    else if (text::is_ascii_punctuation(static_cast<unsigned char>(c)))
      t[c] = Ctx::Punct;
    else
      t[c] = Ctx::Other;
  }
  return t;
}();

void Tidier::reset() noexcept {
  emitted_ = 0;
  direct_runs_ = 0;
  blank_runs_ = 0;
  blank_scanned_ = 0;
  emptied_lines_ = 0;
  settled_ = 0;
  joined_runs_ = 0;
  lead_runs_ = 0;
  settled_lines_ = 0;
  trailing_blanks_ = 0;
  trailing_breaks_ = 0;
  settled_breaks_ = false;
  gathered_calls_ = 0;
  gathered_ = 0;
  started_ = false;
  finished_ = false;
  pre_.clear();
  blank1_end_ = 0;
  has_blank_ = false;
  merge_ = false;
  line_.clear();
  shape_ = Shape::Empty;
  digits_ = 0;
  line_gap_ = false;
  ws_.clear();
  run_char_ = 0;
  run_len_ = 0;
  track_char_ = 0;
  track_len_ = 0;
  phase_ = Phase::Normal;
  group_directive_ = false;
  after_len_ = 0;
  std::memset(cp_buf_, 0, sizeof cp_buf_);
  cp_buf_len_ = 0;
  cp_buf_need_ = 0;
  cr_ = false;
  overflow_ = false;
  ctx_ = Ctx::LineStart;
  cp_ = 0;
  cp_need_ = 0;
}

bool Tidier::plain() const noexcept {
  return phase_ == Phase::Normal && shape_ == Shape::Content && ws_.empty() && run_len_ == 0 && !cr_ &&
         !overflow_;
}

// ------------------------------------------------------------------------------------------------ input

void Tidier::text(std::string_view bytes) { text(bytes, {}); }

void Tidier::text(std::string_view bytes, const text::stage1::MaskView& masks) {
  if (!finished_ && masks && !bytes.empty() && started_ && plain() &&
      is_plain(static_cast<unsigned char>(bytes.back())) &&
      masks.find(text::stage1::kNewlines, 0) == bytes.size()) {
    // A piece of one line that shows text, ending in a plain byte: plain_prefix() would take all of it. (Kept
    // apart from text_stepped() so that a streamed piece does not pay for that function's set-up.)
    pass_direct(bytes, masks);
    return;
  }
  text_stepped(bytes, masks);
}

// The general path: the longest plain stretch in bulk, the rest stepped.
void Tidier::text_stepped(std::string_view bytes, const text::stage1::MaskView& masks) {
  if (finished_) return;
  std::size_t i = 0;
  // One bulk skip per call: plain_prefix finds the last point where the machine is plain, so stepping the
  // rest never reaches a plain state worth another skip, and the scan stays linear.
  bool skipped = false;
  std::size_t stepped_until = 0;  // blank_run() refused the whitespace before this
  while (i < bytes.size()) {
    if (!skipped && (plain() || settle(static_cast<unsigned char>(bytes[i])))) {
      skipped = true;
      const Prefix p = plain_prefix(bytes.substr(i), masks.sub(i, bytes.size() - i));
      if (p.length != 0) {
        const std::string_view bulk = bytes.substr(i, p.length);
        if (i == 0 && started_ && gathered_ == 0) {
          // The piece passes unchanged up to its last plain byte: on to the sink as it came, with its
          // masks, whatever its size (a streamed piece is small). What follows is stepped and gathered
          // behind it, so the order holds. (A blank settle() released first is gathered, and the run with
          // it: two calls cost more than one without masks.)
          pass_direct(bulk, masks.sub(0, p.length));
        } else if (i == 0 && join_on_ && masks && started_ && !p.has_newline && !settled_breaks_ &&
                   gathered_ + p.length <= text::stage1::kBlock && masks.find(kAnyMask, 0) >= p.length) {
          // What settle() released (blanks; no line break, which settle_line() may release) and the run
          // after it, gathered as below but passed on with masks: neither holds a byte any mask marks, so
          // theirs are all zero (one block of none).
          gather(bulk);
          pass_joined();
          resync(bulk);
          track_len_ = 0;
        } else if (gathered_ != 0 && started_ && lead_on_ && pass_with_lead(bytes, i, p.length, masks)) {
          // What this call gathered before the run (the byte that made the line show text, blank lines
          // before it, a blank settle() released) went on with the run in one call.
        } else {
          emit(bulk, masks.sub(i, p.length));
          resync(bulk);
          track_len_ = 0;
        }
        if (p.has_newline) line_gap_ = false;
        i += p.length;
        if (i + 1 == bytes.size() && settle_on_) {
          if (is_blank(bytes[i]) && plain()) {
            // The piece ends in one blank after its bulk (a streamed piece, a released body): held as step()
            // holds it (normal_blank(): trailing blanks wait for what follows), without the machine.
            track_len_ = 0;
            ws_.push_back(bytes[i]);
            check_limit();
            ctx_ = Ctx::Blank;
            cp_need_ = 0;
            ++trailing_blanks_;
            break;
          }
          if (bytes[i] == '\n' && trailing_break()) break;
        }
        continue;
      }
    }
    const unsigned char b = static_cast<unsigned char>(bytes[i]);
    if (i >= stepped_until && is_blank_or_newline(b) && i + 1 < bytes.size() &&
        is_blank_or_newline(static_cast<unsigned char>(bytes[i + 1]))) {
      std::size_t scanned = 0;
      if (const std::size_t n = blank_run(bytes.substr(i), scanned); n != 0) {
        i += n;
        continue;
      }
      // Refused after looking at `scanned` bytes: those are stepped, never looked at again by blank_run (a
      // megabyte of spaces, too long for the limit, would otherwise be rescanned at every byte).
      stepped_until = i + scanned;
    }
    step(b);
    ++i;
  }
  if (gathered_ != 0) flush();
}

// A piece that ends in a line break after its bulk (a paragraph before markup): what step('\n') does in the
// plain state (normal_newline() on a line that shows text with no blank held: the break is held as the
// line's), without the machine. Returns false, having done nothing, in any other state. (Out of line: the
// trailing blank's path before it stays as short as it was.)
bool Tidier::trailing_break() {
  if (!plain()) return false;
  track_len_ = 0;
  pre_.assign(1, '\n');
  has_blank_ = false;
  merge_ = false;
  reset_line();
  check_limit();
  ctx_ = Ctx::LineStart;
  cp_need_ = 0;
  ++trailing_breaks_;
  return true;
}

// Spaces, tabs and line breaks (no CR) taken as step() takes them one at a time, in one pass: the whitespace
// between removed tags (`\n  <react …/>\n  <react …/>`) that the machine holds or drops. Only when nothing
// held can make them more than blanks and line ends: no CR waiting, no emphasis run held or being counted
// after a gap, not past the whitespace limit, and room for all of them under it, so check_limit() cannot
// fire part-way (each byte adds at most one held byte). Then a blank is appended to ws_ (as dispatch_blank()
// and normal_blank() do with no run held), a line break resolves an open cluster at its line end and goes
// through normal_newline() (a line emptied by removals straight to drop_emptied_line(): counted in
// emptied_lines()), and note() would set ctx_ by the last byte. Returns the bytes taken: 0 when the
// run is shorter than two bytes (stepping is as cheap) or the state does not allow it. `scanned`: how many
// bytes it looked at (at most the room under the limit, plus one), so that a caller never offers them again.
std::size_t Tidier::blank_run(std::string_view s, std::size_t& scanned) {
  scanned = 0;
  if (!blanks_may_run()) return 0;
  const std::size_t held = held_bytes();
  if (held >= limit_) return 0;
  const std::size_t bound = std::min(s.size(), limit_ - held + 1);
  std::size_t n = 0;
  while (n < bound && is_blank_or_newline(static_cast<unsigned char>(s[n]))) ++n;
  scanned = n;
  blank_scanned_ += n;
  if (n < 2 || held + n > limit_) return 0;
  take_blanks(s.substr(0, n));
  return n;
}

// A run the caller knows to hold only spaces, tabs and line breaks: what text() does with it, without
// looking for where it ends (blank_run() does that) and without text()'s tests for plain text, which such a
// run never passes. Taken in one pass when blank_run() would take all of it (and a single byte, which
// text() steps); otherwise text().
void Tidier::blanks(std::string_view s) {
  if (!finished_ && !s.empty() && blanks_may_run() && held_bytes() + s.size() <= limit_) {
    take_blanks(s);
    if (gathered_ != 0) flush();  // (seldom: blanks between removed tags gather nothing)
    return;
  }
  text(s);
}

// blank_run()'s pass, once it found s (two or more spaces, tabs and line breaks) allowed; or blanks()'s (one
// or more: a lone line break between removed tags, as in `<actions>\n<react …/>`, costs no step() either).
void Tidier::take_blanks(std::string_view s) {
  ++blank_runs_;
  const std::size_t n = s.size();
  if (s[0] == '\n' && shape_ == Shape::Empty && line_gap_) {
    std::size_t j = 1;
    while (j < n && s[j] != '\n') ++j;
    if (j == n) {
      // The common shape (`\n  ` between directives on lines of their own): the line break ends a line
      // emptied by removals, and blanks follow it. What the loop below does with it, in straight-line code:
      // an open cluster resolves at the line end (its blanks go), the line goes with its break, and the
      // blanks after it are held (phase_ is Normal or Cluster here: blanks_may_run()).
      phase_ = Phase::Normal;
      ++emptied_lines_;
      drop_emptied_line();
      line_.clear();
      digits_ = 0;
      line_gap_ = false;
      if (ws_.size() == n - 1) {  // as the last gap's line left it (the same indentation): no string call
        char* w = ws_.data();
        for (std::size_t k = 1; k < n; ++k) w[k - 1] = s[k];  // a few bytes: no memcpy call
      } else {
        ws_.assign(s.data() + 1, n - 1);
      }
      track_len_ = 0;
      ctx_ = n > 1 ? Ctx::Blank : Ctx::LineStart;
      cp_need_ = 0;
      return;
    }
  }
  take_blank_lines(s);
}

// take_blanks() for any other shape, line by line (out of line: the common shape above then saves no
// registers for these calls).
void Tidier::take_blank_lines(std::string_view s) {
  const std::size_t n = s.size();
  for (std::size_t i = 0;;) {
    std::size_t j = i;
    while (j < n && s[j] != '\n') ++j;
    if (j > i) {
      track_len_ = 0;
      ws_.append(s.data() + i, j - i);
      ctx_ = Ctx::Blank;
    }
    if (j == n) break;
    if (phase_ == Phase::Cluster) resolve(Next::LineEnd);
    if (shape_ == Shape::Empty && line_gap_) {
      // A line that held only blanks and removed markup (`\n  <react …/>`): normal_newline() without its
      // checks (no overflow and no run held here; held bytes only shrink, so the limit cannot fire).
      ++emptied_lines_;
      track_len_ = 0;
      drop_emptied_line();
      reset_line();
    } else {
      normal_newline(false);
    }
    ctx_ = Ctx::LineStart;
    i = j + 1;
  }
  cp_need_ = 0;
}

// The content byte b after a gap, or after blanks held at the end of a line that shows text, settles what
// is held as step(b) would, without stepping it: an open cluster resolves before b (resolve(): nothing before
// closing punctuation, else one space when it held blanks; a line that shows text is never at its start),
// held trailing blanks are text after all (commit_pending()), and b is content on that line. What that leaves
// is the plain state right before b, so plain_prefix() may take b and what follows in bulk. Only when nothing
// else is held or waiting: no emphasis run (held, or counted after a gap), no CR, no overflow, and b is plain
// (no blank, line break or emphasis character, which step() treats otherwise). Returns whether it settled.
bool Tidier::settle(unsigned char b) {
  if (!settle_on_ || phase_ == Phase::After || run_len_ != 0 || cr_ || overflow_ || !is_plain(b))
    return false;
  if (shape_ != Shape::Content) return settle_line(b);
  settled_breaks_ = false;
  if (phase_ == Phase::Cluster) resolve(is_closing(b) ? Next::Close : Next::Other);  // as dispatch_content()
  if (!ws_.empty()) {  // commit_pending() with no run held, on a line that shows text: the blanks go out now
    emit(ws_);
    ws_.clear();
  }
  track_len_ = 0;
  ++settled_;
  return true;
}

// settle() at the start of a line that shows nothing yet (no gap open; only blanks kept on it), for a plain
// byte b that begins no list marker (`-`, `+`, a digit; `*` is no plain byte): step(b) would make the line
// show text (advance_shape()) and pass on what was held before it (commit_pending() and keep(): the line
// break and blank lines in pre_, the line's blanks), then b. The same, without stepping b: the first
// paragraph after removed markup, the line after a blank line.
bool Tidier::settle_line(unsigned char b) {
  if (phase_ != Phase::Normal || shape_ != Shape::Empty || b == '-' || b == '+' || is_digit(b)) return false;
  track_len_ = 0;
  settled_breaks_ = !pre_.empty();
  emit_pre();
  emit(line_);
  emit(ws_);
  line_.clear();
  ws_.clear();
  shape_ = Shape::Content;
  merge_ = false;
  ++settled_lines_;
  return true;
}

// The bytes gathered in this call, then the plain run bytes[i, i + len), in one sink call: when the gathered
// bytes are the piece's own bytes right before the run (blank lines and the first byte of a line, as after
// removed markup), as they lie, with their masks; or, for a run at the piece's start, when the gathered
// bytes are blanks (held from the last call: the blank a released body ended in, before the next one),
// copied in front of the run, with the masks widened over the scanned buffer's bytes right before the piece
// when those are unmarked too (as blanks are), else without masks. Whether it joins depends on the bytes
// alone, never on the masks, so the text events split alike with masks and without. Otherwise nothing is
// done and false is returned.
bool Tidier::pass_with_lead(std::string_view bytes, std::size_t i, std::size_t len,
                            const text::stage1::MaskView& masks) {
  const std::size_t g = gathered_;
  if (g <= i) {
    if (std::memcmp(gather_, bytes.data() + (i - g), g) != 0) return false;
    pass_lead(bytes.substr(i - g, g + len), masks.sub(i - g, g + len));
    return true;
  }
  if (i != 0 || g + len > kGatherMax) return false;
  for (std::size_t k = 0; k < g; ++k)
    if (!is_blank(gather_[k])) return false;
  std::memcpy(gather_ + g, bytes.data(), len);
  text::stage1::MaskView wide;
  if (masks && masks.lead() >= g && masks.widen_front(g).sub(0, g).none(kAnyMask))
    wide = masks.widen_front(g).sub(0, g + len);
  pass_lead(std::string_view(gather_, g + len), wide);
  return true;
}

// pass_with_lead()'s call: the gathered bytes and the run, as one piece; the state as emit() of the run
// leaves it.
void Tidier::pass_lead(std::string_view joined, const text::stage1::MaskView& masks) {
  gathered_ = 0;
  out_.clean_run(joined, masks);
  emitted_ += joined.size();
  ++lead_runs_;
  resync(joined);
  track_len_ = 0;
}

// The gathered bytes are bytes no stage-1 mask marks, at most one block of them: passed on with masks of
// none, so that the judge's code tracker need not scan them (the gathered path passes them without masks).
void Tidier::pass_joined() {
  static constexpr text::stage1::BlockMasks kNone{};
  out_.clean_run(gathered(), text::stage1::MaskView(&kNone, 0, gathered_));
  emitted_ += gathered_;
  gathered_ = 0;
  ++joined_runs_;
}

// Bytes the machine passes on unchanged, starting in the plain state and ending in it, nothing gathered.
void Tidier::pass_direct(std::string_view bulk, const text::stage1::MaskView& masks) {
  out_.clean_run(bulk, masks);
  emitted_ += bulk.size();
  ++direct_runs_;
  resync(bulk);
  track_len_ = 0;
}

void Tidier::gap(GapKind kind) {
  if (finished_) return;
  if (cr_) {  // a lone CR before markup
    cr_ = false;
    dispatch_blank('\r');
  }
  if (phase_ == Phase::After) end_after();  // a gap ends the run after the previous gap
  line_gap_ = true;
  track_len_ = 0;
  if (phase_ == Phase::Normal) {
    // ws_ and a held run stay where they are: they are the blanks and run right before the gap.
    phase_ = Phase::Cluster;
    group_directive_ = kind == GapKind::Directive;
  } else if (run_len_ != 0) {
    group_directive_ = group_directive_ || kind == GapKind::Directive;
  }
  ctx_ = Ctx::Boundary;
  if (gathered_ != 0) flush();
}

void Tidier::finish() {
  if (finished_) return;
  finished_ = true;
  cr_ = false;  // trailing whitespace
  if (phase_ == Phase::After) {
    end_after();  // the end of the reply ends the run after the gap
    cr_ = false;
  }
  if (phase_ == Phase::Cluster) {
    if (run_len_ != 0) fail_before_run();
    resolve(Next::LineEnd);
  }
  if (run_len_ != 0) commit_pending();  // a run at the very end is text
  ws_.clear();                          // trailing blanks
  if (shape_ != Shape::Content) {
    const bool removable = line_gap_ && (shape_ == Shape::Empty || shape_ == Shape::Marker);
    if (!removable && !line_.empty()) {
      emit_pre();
      emit(line_);
    }
  }
  pre_.clear();  // trailing line breaks and blank lines
  line_.clear();
  flush();
}

// ------------------------------------------------------------------------------------------------ output

void Tidier::emit(std::string_view s, const text::stage1::MaskView& masks) {
  if (s.empty()) return;
  std::size_t skipped = 0;
  if (!started_) {  // the clean text is trimmed at its start
    const std::size_t k = s.find_first_not_of(" \t\r\n");
    if (k == std::string_view::npos) return;
    s.remove_prefix(k);
    skipped = k;
    started_ = true;
  }
  if (s.size() >= kDirectEmit) {
    if (gathered_ != 0) flush();
    out_.clean_run(s, masks.sub(skipped, s.size()));
    emitted_ += s.size();
    return;
  }
  if (gathered_ + s.size() > kGatherMax) flush();
  gather(s);
}

// Callers pass pieces shorter than kDirectEmit, and flush() first when one would not fit.
void Tidier::gather(std::string_view s) noexcept {
  std::memcpy(gather_ + gathered_, s.data(), s.size());
  gathered_ += s.size();
}

void Tidier::flush() {
  if (gathered_ == 0) return;
  out_.clean_text(gathered());
  emitted_ += gathered_;
  gathered_ = 0;
  ++gathered_calls_;
}

// ------------------------------------------------------------------------------------------------ context

// Keeps ctx_ = the class of the last complete code point (a gap sets it to Boundary).
void Tidier::note(unsigned char b) noexcept {
  if (b < 0x80) {
    cp_need_ = 0;
    ctx_ = kAsciiCtx[b];
    return;
  }
  if (b >= 0xC0) {
    cp_need_ = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1;
    cp_ = b & (b >= 0xF0 ? 0x07u : b >= 0xE0 ? 0x0Fu : 0x1Fu);
    ctx_ = Ctx::Other;
    return;
  }
  if (cp_need_ == 0) return;
  cp_ = (cp_ << 6) | (b & 0x3Fu);
  if (--cp_need_ == 0) ctx_ = text::is_punctuation(cp_) ? Ctx::Punct : Ctx::Other;
}

// After a bulk skip: decode only the last code point (or continue the one in progress).
void Tidier::resync(std::string_view bulk) noexcept {
  const std::size_t n = bulk.size();
  if (n != 0 && static_cast<unsigned char>(bulk[n - 1]) < 0x80) {
    // An ASCII byte is a whole code point: note() of it alone (a streamed piece almost always ends so).
    cp_need_ = 0;
    ctx_ = kAsciiCtx[static_cast<unsigned char>(bulk[n - 1])];
    return;
  }
  resync_slow(bulk);
}

void Tidier::resync_slow(std::string_view bulk) noexcept {
  const std::size_t n = bulk.size();
  std::size_t back = 0;
  while (back < n && back < 3 && (static_cast<unsigned char>(bulk[n - 1 - back]) & 0xC0) == 0x80) ++back;
  const std::size_t from = back == n ? 0 : n - 1 - back;
  for (std::size_t k = from; k < n; ++k) note(static_cast<unsigned char>(bulk[k]));
}

}  // namespace sigil::parse
