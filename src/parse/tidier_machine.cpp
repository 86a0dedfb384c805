// The tidier's byte machine: step() and the states it dispatches to, what it holds and releases. The
// input and output sides are tidier.cpp (see there for how the two fit together).
#include <cstring>
#include <string_view>

#include "sigil/parse/tidier.h"
#include "sigil/text/unicode.h"
#include "tidier_bytes.h"

namespace sigil::parse {

using namespace tidier_bytes;

void Tidier::step(unsigned char b) {
  if (cr_) {
    cr_ = false;
    if (b == '\n') {
      dispatch_newline(true);
      note(b);
      return;
    }
    dispatch_blank('\r');  // a lone CR is no line break, but whitespace all the same
  }
  if (phase_ == Phase::After && after_step(b)) return;
  if (b == '\r') {
    cr_ = true;  // wait: "\r\n" is one line break
  } else if (is_blank(b)) {
    dispatch_blank(b);
  } else if (b == '\n') {
    dispatch_newline(false);
  } else if (is_run_char(b)) {
    dispatch_run(b);
  } else {
    dispatch_content(b);
  }
  note(b);
}

void Tidier::dispatch_blank(unsigned char b) {
  if (phase_ == Phase::Normal) return normal_blank(b);
  if (run_len_ != 0) fail_before_run();  // a blank right after the gap: the run before it is not emphasis
  track_len_ = 0;
  if (overflow_) {
    emit(std::string_view(reinterpret_cast<const char*>(&b), 1));
    return;
  }
  ws_.push_back(static_cast<char>(b));
  check_limit();
}

void Tidier::dispatch_newline(bool crlf) {
  if (phase_ == Phase::Cluster) {
    if (run_len_ != 0) fail_before_run();
    resolve(Next::LineEnd);
  }
  normal_newline(crlf);
}

void Tidier::dispatch_run(unsigned char b) {
  if (phase_ == Phase::Cluster) {
    if (run_len_ != 0) {
      if (b == run_char_ && group_directive_) {
        phase_ = Phase::After;
        after_len_ = 1;
        return;
      }
      fail_before_run();
    }
    resolve(Next::Other);
  }
  normal_run(b);
}

void Tidier::dispatch_content(unsigned char b) {
  if (phase_ == Phase::Cluster) {
    if (run_len_ != 0) fail_before_run();
    resolve(is_closing(b) ? Next::Close : Next::Other);
  }
  normal_content(b);
}

// Phase::After: the gap group took a run of run_len_ x run_char_ before it; after_len_ of the same char
// came right after it. Returns true when b was consumed here.
bool Tidier::after_step(unsigned char b) {
  if (cp_buf_need_ != 0) {  // collecting the code point that follows the run
    cp_buf_[cp_buf_len_++] = b;
    if (cp_buf_len_ < cp_buf_need_) return true;
    std::size_t len = 0;
    const std::string_view cp_bytes(reinterpret_cast<const char*>(cp_buf_), cp_buf_len_);
    const char32_t cp = text::decode_at(cp_bytes, 0, &len);
    unsigned char bytes[4];
    const unsigned n = cp_buf_len_;
    std::memcpy(bytes, cp_buf_, n);
    cp_buf_len_ = cp_buf_need_ = 0;
    if (text::is_punctuation(cp))
      after_success();
    else
      after_fail();
    for (unsigned k = 0; k < n; ++k) step(bytes[k]);
    return true;
  }
  if (b == run_char_) {
    if (after_len_ < run_len_) {
      ++after_len_;
      note(b);
      return true;
    }
    after_fail();  // longer than the run before the gap
    return false;
  }
  if (after_len_ != run_len_) {
    after_fail();
    return false;
  }
  if (b < 0x80) {
    if (is_markup_space(b) || text::is_punctuation(b))
      after_success();
    else
      after_fail();
    return false;
  }
  if (b >= 0xC0) {
    cp_buf_[0] = b;
    cp_buf_len_ = 1;
    cp_buf_need_ = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    return true;
  }
  after_fail();  // a stray continuation byte (not valid UTF-8)
  return false;
}

// Something that is no byte (a gap, the end) follows the run after the gap: a boundary, if the run is
// complete. A code point still being collected there is not valid UTF-8; it stays text.
void Tidier::end_after() {
  if (cp_buf_len_ == 0) {
    if (after_len_ == run_len_)
      after_success();
    else
      after_fail();
    return;
  }
  const unsigned n = cp_buf_len_;
  unsigned char bytes[4];
  std::memcpy(bytes, cp_buf_, n);
  cp_buf_len_ = cp_buf_need_ = 0;
  after_fail();
  for (unsigned k = 0; k < n; ++k) step(bytes[k]);
}

void Tidier::after_success() {
  // Both runs go with the directive; the blanks before the first one (ws_) stay the cluster's left side.
  run_len_ = 0;
  after_len_ = 0;
  track_len_ = 0;
  phase_ = Phase::Cluster;
}

void Tidier::after_fail() {
  const unsigned n = after_len_;
  const unsigned char c = run_char_;
  after_len_ = 0;
  phase_ = Phase::Cluster;
  fail_before_run();
  // The run after the gap touches it directly and so does the run before it: nothing around the gap to
  // tidy. The run after is ordinary text that starts right after a gap.
  phase_ = Phase::Normal;
  ctx_ = Ctx::Boundary;
  track_len_ = 0;
  for (unsigned k = 0; k < n; ++k) {
    normal_run(c);
    note(c);
  }
}

// The run held before the gap is not emphasis after all: it is text, and the blanks before it with it.
// The gap stays open with nothing around it yet.
void Tidier::fail_before_run() { commit_pending(); }

void Tidier::resolve(Next next) {
  phase_ = Phase::Normal;
  if (ws_.empty()) return;
  if (next != Next::Other || at_line_start())
    ws_.clear();
  else
    ws_.assign(1, ' ');  // held until the next byte shows whether another gap follows
}

void Tidier::normal_blank(unsigned char b) {
  track_len_ = 0;
  if (overflow_) {
    emit(std::string_view(reinterpret_cast<const char*>(&b), 1));
    return;
  }
  if (run_len_ != 0) commit_pending();  // a run followed by a blank is not right before a gap
  ws_.push_back(static_cast<char>(b));
  check_limit();
}

void Tidier::normal_newline(bool crlf) {
  const std::string_view brk = crlf ? std::string_view("\r\n") : std::string_view("\n");
  track_len_ = 0;
  if (overflow_) {
    emit(brk);
    reset_line();
    return;
  }
  if (run_len_ != 0) commit_pending();
  if (shape_ == Shape::Content) {
    // The break and the blanks before it: trailing whitespace of the reply, or kept as written.
    pre_.assign(ws_);
    pre_.append(brk);
    has_blank_ = false;
    merge_ = false;
  } else if (line_gap_ && (shape_ == Shape::Empty || shape_ == Shape::Marker)) {
    drop_emptied_line();
  } else if (shape_ == Shape::Empty) {
    if (!(merge_ && has_blank_)) {
      pre_.append(ws_);
      pre_.append(brk);
      if (!has_blank_) {
        has_blank_ = true;
        blank1_end_ = pre_.size();
      }
    }
  } else {
    // Only a list marker or a number, and no removal touched it: a line as written.
    emit_pre();
    emit(line_);
    pre_.assign(ws_);
    pre_.append(brk);
    merge_ = false;
  }
  reset_line();
  check_limit();
}

void Tidier::normal_run(unsigned char b) {
  overflow_ = false;
  if (run_len_ != 0) {
    if (b == run_char_) {
      ++run_len_;
      ++track_len_;
      if (run_len_ > 3) commit_pending();  // 4 or more: never emphasis; the rest of it passes as text
      return;
    }
    commit_pending();  // another emphasis char ends the run: it is not right before a gap
    track_len_ = 0;
  }
  if (track_len_ != 0 && b == track_char_) {  // the rest of a run that is already text
    ++track_len_;
    keep(std::string_view(reinterpret_cast<const char*>(&b), 1));
    return;
  }
  track_char_ = b;
  track_len_ = 1;
  if (ctx_ != Ctx::Other) {  // after a line start, a blank, punctuation or a gap: may be emphasis
    run_char_ = b;
    run_len_ = 1;
    return;
  }
  commit_pending();
  keep(std::string_view(reinterpret_cast<const char*>(&b), 1));
}

void Tidier::normal_content(unsigned char b) {
  overflow_ = false;
  track_len_ = 0;
  commit_pending();
  keep(std::string_view(reinterpret_cast<const char*>(&b), 1));
}

// The held blanks and run are text after all.
void Tidier::commit_pending() {
  if (!ws_.empty()) {
    keep(ws_);
    ws_.clear();
  }
  if (run_len_ != 0) {
    const char run[3] = {static_cast<char>(run_char_), static_cast<char>(run_char_),
                         static_cast<char>(run_char_)};
    const unsigned n = run_len_;
    run_len_ = 0;
    for (unsigned done = 0; done < n;) {  // n may be 4 (a run just found too long)
      const unsigned k = n - done < 3 ? n - done : 3;
      keep(std::string_view(run, k));
      done += k;
    }
  }
}

// Bytes that stay on the current line. Shown at once when the line shows text; otherwise held in line_
// until it does (or the line ends), since a gap may still empty the line.
void Tidier::keep(std::string_view bytes) {
  if (shape_ == Shape::Content) return emit(bytes);
  for (std::size_t j = 0; j < bytes.size(); ++j) {
    advance_shape(static_cast<unsigned char>(bytes[j]));
    if (shape_ == Shape::Content) {
      emit_pre();
      emit(line_);
      line_.clear();
      emit(bytes);
      merge_ = false;
      return;
    }
  }
  line_.append(bytes);
}

void Tidier::advance_shape(unsigned char b) noexcept {
  switch (shape_) {
    case Shape::Empty:
      if (is_line_blank(b)) return;
      if (b == '-' || b == '+' || b == '*')
        shape_ = Shape::Marker;
      else if (is_digit(b))
        shape_ = Shape::Digits, digits_ = 1;
      else
        shape_ = Shape::Content;
      return;
    case Shape::Digits:
      if (is_digit(b) && digits_ < 9)
        ++digits_;
      else if (b == '.' || b == ')')
        shape_ = Shape::Marker;
      else
        shape_ = Shape::Content;
      return;
    case Shape::Marker:
      if (!is_line_blank(b)) shape_ = Shape::Content;
      return;
    case Shape::Content:
      return;
  }
}

// Emptied by removals: the line goes with its break, and the blank lines around it merge.
void Tidier::check_limit() {
  if (held_bytes() > limit_) release_all();
}

// A whitespace run too long to hold: pass everything on as written. What is shown of the current line can
// no longer disappear, and the rest of the run follows as written (overflow_) until a non-blank byte.
void Tidier::release_all() {
  emit(pre_);
  emit(line_);
  emit(ws_);
  pre_.clear();
  line_.clear();
  ws_.clear();
  has_blank_ = false;
  merge_ = false;
  shape_ = Shape::Content;
  overflow_ = true;
}

void Tidier::emit_pre() {
  emit(pre_);
  pre_.clear();
  has_blank_ = false;
}

}  // namespace sigil::parse
