// How a fed chunk reaches the byte machine: stage 1 (UTF-8 and the structural masks in one pass), then
// ordinary text skipped in bulk along the masks, then on_byte() for the bytes that may be markup.
#include <cstring>
#include <functional>

#include "parser_impl.h"

namespace sigil::parse {

// ---------------------------------------------------------------------------------------------------------
// Input

namespace {

// Stage 1 runs over windows of at most this many bytes (cut where no UTF-8 sequence is split): its masks stay
// in the L2 cache and their storage bounded (48 bytes per 64) whatever size the caller feeds.
constexpr std::size_t kWindow = std::size_t{64} << 10;

// Where markup may start in a piece without masks (consume()); a constant, not part of each parser's state.
constexpr text::ByteSet kTextStops{"<["};

}  // namespace

void Parser::Impl::feed(std::string_view chunk) {
  stats_.bytes_in += chunk.size();
  if (chunk.size() <= kWindow) return feed_window(chunk);  // a streamed piece: one window, no loop
  feed_windows(chunk);
}

// A chunk longer than one window, window by window (out of line: feed() then sets up no frame of its own for
// the streamed pieces that never come here).
void Parser::Impl::feed_windows(std::string_view chunk) {
  std::size_t off = 0;
  while (off < chunk.size()) {
    std::size_t len = chunk.size() - off;
    if (len > kWindow) {
      const std::size_t cut = text::safe_cut(chunk.substr(off), kWindow);
      len = cut != 0 ? cut : kWindow;
    }
    feed_window(chunk.substr(off, len));
    off += len;
  }
}

// One pass of stage 1 gives the window's UTF-8 verdict and its structural masks. Valid text (with nothing
// held from the last window) goes to consume() whole, with its masks; otherwise the sanitizer cuts it into
// pieces and replacements as before, and each piece that is a view into the window still gets its masks.
void Parser::Impl::feed_window(std::string_view window) {
  const std::size_t blocks = text::stage1::blocks_for(window.size());
  if (masks_.size() < blocks) grow_masks(blocks);
  const text::stage1::Utf8Check check = text::stage1::scan(kernel_, window, masks_.data());
  if (utf8_.held() == 0 && text::stage1::all_valid(check, window.size())) {
    utf8_.accept_valid(window.size());
    const text::stage1::MaskView masks(masks_.data(), 0, window.size());
    if (in_ordinary_text() && masks.none(text::stage1::kMarkupStarts)) {
      // Ordinary text with no `<` or `[` in it (most streamed pieces): consume()'s first step would take it
      // all as one ordinary run; taken here without entering consume()'s loop.
      ++stats_.ordinary_pieces;
      return ordinary_run(window, masks);
    }
    consume(window, masks);
    return;
  }
  feed_sanitized(window);
}

// Out of line (as the rest of the window's set-up that a streamed piece seldom needs), so that feed_window()
// stays cheap to enter: it runs once per fed chunk.
void Parser::Impl::grow_masks(std::size_t blocks) { masks_.resize(blocks); }  // to one window at most, once

// Not valid as a whole, or a sequence held from the last window: through the sanitizer, piece by piece.
void Parser::Impl::feed_sanitized(std::string_view window) {
  window_ = window;
  utf8_.feed(window, [this](std::string_view piece) { consume_piece(piece); });
  window_ = {};
  // A bracket is final one byte after its `]` (3.4, 11.5). When that byte starts a multi-byte character the
  // sanitizer holds it for the rest, but its lead byte already says it is no `(`: the bracket is final now.
  if (c_.kind == Kind::BracketEnd && utf8_.held() > 0) complete_bracket_here();
}

// A replacement for invalid UTF-8 comes as its own piece; it is reported where it stands in the stream
// (so diagnostics do not depend on chunking), the first few one by one and the rest as a count at the end.
void Parser::Impl::consume_piece(std::string_view piece) {
  if (piece.data() == text::Utf8Sanitizer::kReplacementChar.data()) {
    // A bracket waiting for the byte after its `]` is final here (U+FFFD is no `(`): complete it before the
    // diagnostic, as feed() does when the same bad byte arrives in the next chunk, so the order of the
    // directive and the diagnostic does not depend on chunking (a fuzzer find).
    if (c_.kind == Kind::BracketEnd) complete_bracket_here();
    if (++utf8_noted_ <= kUtf8NotesShown)
      diag("invalid-utf8", input_offset(pos_), "an ill-formed UTF-8 sequence became U+FFFD");
  }
  const std::less_equal<const char*> le;
  if (le(window_.data(), piece.data()) && le(piece.data() + piece.size(), window_.data() + window_.size()))
    return consume(
        piece, text::stage1::MaskView(masks_.data(), static_cast<std::size_t>(piece.data() - window_.data()),
                                      piece.size()));
  consume(piece, {});  // a replacement, or a sequence completed across windows: a few bytes
}

// `masks`, when given, are stage 1's masks of s: the bulk skips then read them instead of the bytes.
void Parser::Impl::consume(std::string_view s, const text::stage1::MaskView& masks) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    if (in_ordinary_text()) {
      // Ordinary text: nothing but `<` and `[` can start markup, so skip to the next one in bulk.
      std::size_t j = masks ? masks.find(text::stage1::kMarkupStarts, i) : kTextStops.find_first(s, i);
      if (j == text::ByteSet::npos) j = n;
      if (j > i) {
        ordinary_run(s.substr(i, j - i), masks.sub(i, j - i));
        i = j;
        continue;
      }
      if (opt_.whole_markup) {
        if (std::size_t used = whole_markup(s, i, masks); used != 0) {
          // Markup read whole; then, while only blanks stand before the next opener, the blanks and the
          // opener (blank_gap() found it: no search of the masks for it, as in directive-dense replies).
          for (;;) {
            i += used;
            if (i == n || (s[i] != '\n' && s[i] != ' ' && s[i] != '\t')) break;  // no blanks: no call
            const std::size_t blanks = blank_gap(s, i);
            if (blanks == 0) break;
            i += blanks;
            if (i == n) break;
            used = whole_markup(s, i, masks);
            if (used == 0) {  // the byte machine reads this opener, as below
              on_byte(static_cast<unsigned char>(s[i]));
              ++i;
              break;
            }
          }
          continue;
        }
      }
    } else if ((c_.kind == Kind::TextBody || c_.kind == Kind::MarkupBody) && opt_.whole_markup) {
      if (const std::size_t used = body_run(s, i, masks); used != 0) {
        i += used;
        continue;
      }
      if (held_lag_ != 0) settle_held();  // the byte machine reads the body from c_.held
    } else if (mode_ == Mode::Hidden && !hidden_scan_.active()) {
      // Inside a hidden region only a close tag counts: skip to the next `<`, dropping what is before it.
      std::size_t j;
      if (masks) {
        j = masks.find(text::stage1::kLessThans, i);
      } else {
        const void* lt = std::memchr(s.data() + i, '<', n - i);
        j = lt == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(lt) - s.data());
      }
      pos_ += j - i;
      i = j;
      if (i == n) break;
    }
    on_byte(static_cast<unsigned char>(s[i]));
    ++i;
  }
}

// A run of ordinary text with no `<` or `[`: the shadow code tracker and the line state move over it in
// bulk, and it goes on to the clean-text stages in one call.
// When the shadow tracker was in no fence anywhere in the run, the reply's sentinel judge is told so
// (SentinelLines::fence_free_run): its own tracker then steps only the first and last line of each piece of
// the run it gets, so the code state of the lines between is computed once, here. The shadow tracker reads
// each line's first byte anyway, and lists the line breaks after which a line began with a byte that does
// not rule out a sentinel line (CodeTracker::other_breaks()); the judge takes the rest of the run's dead
// lines on that word, without looking for their breaks: one walk of the line breaks serves both.
void Parser::Impl::ordinary_run(std::string_view run, const text::stage1::MaskView& masks) {
  if (run.size() < kSharedCodeRun && code_.feed_plain(run, masks)) {
    // Most streamed pieces: mid-line text with no backtick or line break. Nothing to tell the judge (its
    // tracker takes such a piece as cheaply), no last line break to look for. (A longer run, as a whole reply
    // has between its markup, seldom lacks a line break: it is not asked.)
    ++stats_.plain_runs;
    if (line_ws_only_) run_line_state(run, std::string_view::npos);
    emit_text(run, masks);
    pos_ += run.size();
    return;
  }
  ordinary_lines(run, masks);
}

// The rest of ordinary_run() (out of line, so that the plain pieces set up no frame for it): the shadow
// tracker fed in full, the line state after the run's last line break, the judge told if it was fence-free.
void Parser::Impl::ordinary_lines(std::string_view run, const text::stage1::MaskView& masks) {
  const bool tell = run.size() >= kSharedCodeRun && !code_.in_fence();
  const std::uint64_t opened = code_.fences_opened();
  if (tell) code_.start_listing();
  code_.feed(run, masks);
  // The run's last line break, from the tracker's count of the bytes since its line began (it counts every
  // byte fed but a line break, and restarts at one): no search back through the masks or the bytes.
  const std::uint64_t tail = code_.bytes_since_line_start();
  run_line_state(run, tail < run.size() ? run.size() - 1 - tail : std::string_view::npos);
  if (tell && code_.fences_opened() == opened)
    emit_fence_free(run, masks);
  else
    emit_text(run, masks);
  pos_ += run.size();
}

// emit_text() with the judge told, for this call only (the window's memory is reused), even if a sink throws.
void Parser::Impl::emit_fence_free(std::string_view run, const text::stage1::MaskView& masks) {
  struct Told {
    SentinelLines& judge;
    ~Told() { judge.fence_free_run({}); }
  } told{main_judge_};
  main_judge_.fence_free_run(run, &code_.other_breaks());
  emit_text(run, masks);
}

void Parser::Impl::run_line_state(std::string_view run, std::size_t last_newline) {
  if (last_newline != std::string_view::npos) line_ws_only_ = true;
  if (!line_ws_only_) return;
  const std::string_view tail = last_newline == std::string_view::npos ? run : run.substr(last_newline + 1);
  for (char ch : tail)
    if (ch != ' ' && ch != '\t' && ch != '\r') {
      line_ws_only_ = false;
      return;
    }
}

void Parser::Impl::on_byte(unsigned char c) {
  ++stats_.bytes_examined;
  if (c_.kind == Kind::HiddenWait && hidden_wait_byte(c)) {
    note_held();
    ++pos_;
    return;
  }
  if (mode_ == Mode::Hidden) {
    hidden_byte(c);
    ++pos_;
    return;
  }
  Ctx ctx{code_.in_code(), line_ws_only_};
  // Only a byte that can start markup needs the shadow state before it (to undo the markup later).
  if (c == '<' || c == '[') pre_step_ = code_.snapshot();
  code_.step(c);
  const bool fence = code_.fence_line_started();
  if (c == '\n')
    line_ws_only_ = true;
  else if (c != ' ' && c != '\t' && c != '\r')
    line_ws_only_ = false;
  dispatch(c, ctx, fence);
  note_held();
  ++pos_;
}

void Parser::Impl::dispatch(unsigned char c, const Ctx& ctx, bool fence) {
  switch (c_.kind) {
    case Kind::None:
      if (opener_.active())
        opener_byte(c, ctx);
      else
        text_byte(c, ctx);
      return;
    case Kind::OpenTag:
      return open_tag_byte(c, ctx, fence);
    case Kind::TextBody:
      return text_body_byte(c, ctx, fence);
    case Kind::MarkupBody:
      return markup_body_byte(c);
    case Kind::JsonStart:
    case Kind::JsonFence:
    case Kind::JsonFenceLine:
    case Kind::JsonAfterFence:
      return json_start_byte(c, ctx, fence);
    case Kind::JsonBody:
      if (cs_.json().after_value) return json_after_value_byte(c, ctx);
      return json_body_byte(c, ctx, fence);
    case Kind::JsonDrop:
      return json_drop_byte(c);
    case Kind::Bracket:
      return bracket_byte(c, ctx, fence);
    case Kind::BracketEnd:
      return bracket_end_byte(c, ctx);
    case Kind::Comment:
    case Kind::Cdata:
      return comment_byte(c, ctx);
    case Kind::HiddenWait:
      return;  // handled in on_byte
  }
}

// Feeds bytes again from `start_pos`, from the shadow state the caller restored. Bounded by the callers.
void Parser::Impl::replay(std::string_view bytes, std::uint64_t start_pos) {
  stats_.bytes_replayed += bytes.size();
  pos_ = start_pos;
  for (char ch : bytes) on_byte(static_cast<unsigned char>(ch));
}

}  // namespace sigil::parse
