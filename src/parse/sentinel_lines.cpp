#include "sigil/parse/sentinel_lines.h"

#include <bit>
#include <cstring>
#include <functional>

#include "sigil/text/ascii.h"
#include "sigil/text/unicode.h"

// How it works: each line is matched as it arrives against "decoration, form, decoration" by a tiny
// nondeterministic matcher (left decoration counts, the set of forms still matching, and one right-side
// count per way a form could have ended). A line is held only while that matcher is alive; the moment it
// dies the line is passed on and its rest goes straight through. Every decision depends only on the bytes
// seen, never on how they were split.

namespace sigil::parse {
namespace {

constexpr std::size_t kMaxForms = 64;
// A piece without masks this short goes past a dead line's rest with one memchr for its line break (the
// tidier gathers pieces shorter than 64 bytes).
constexpr std::size_t kShortPiece = 64;

bool is_decoration(char32_t cp) noexcept {
  return cp == '`' || cp == '~' || cp == '*' || cp == '_' || text::is_punctuation(cp);
}

constexpr bool is_space(char32_t cp) noexcept { return cp == ' ' || cp == '\t' || cp == '\r'; }

// Whether piece lies in the memory of run (both views; an empty run holds nothing).
bool within(std::string_view run, std::string_view piece) noexcept {
  const std::less_equal<const char*> le;
  return run.data() != nullptr && le(run.data(), piece.data()) &&
         le(piece.data() + piece.size(), run.data() + run.size());
}

// A form must begin with something that ends the left decoration, so the matcher needs no backtracking.
bool usable_start(std::string_view s) {
  if (s.empty()) return false;
  std::size_t len = 0;
  const char32_t cp = text::decode_at(s, 0, &len);
  return !is_space(cp) && cp != '\n' && !is_decoration(cp);
}

}  // namespace

namespace {

SentinelLines::FormSet build_forms(const SentinelWords& words, std::size_t max_forms) {
  SentinelLines::FormSet set;
  std::vector<SentinelLines::Form>& forms = set.forms;
  auto add = [&](std::string text, bool fold) {
    if (forms.size() < max_forms) forms.push_back(SentinelLines::Form{std::move(text), fold});
  };
  for (const std::string& w : words.bare)
    if (usable_start(w)) add(w, false);
  for (const std::string& t : words.tags) {
    if (t.empty() || !usable_start(t)) continue;
    const std::string name = text::ascii::to_lower(t);
    add("<" + name + "/>", true);
    add("<" + name + " />", true);
    add("<" + name + ">", true);
    add("<" + name + "></" + name + ">", true);
  }
  for (unsigned b = 0; b < 128; ++b) {
    const auto c = static_cast<char>(b);
    bool kills = !is_space(b) && b != '\n' && !is_decoration(b);
    for (const SentinelLines::Form& f : forms)
      kills = kills && f.text[0] != (f.fold ? text::ascii::lower(c) : c);
    if (kills) set.killers.add(static_cast<unsigned char>(b));
    if (is_space(b) || is_decoration(b)) set.left_line[b >> 6] |= std::uint64_t{1} << (b & 63);
  }
  return set;
}

bool same_words(const SentinelWords& a, const SentinelWords& b) {
  return a.bare == b.bare && a.tags == b.tags;
}

const SentinelLines::FormSet* default_forms() {
  static const SentinelLines::FormSet kDefault = build_forms(SentinelWords{}, kMaxForms);
  return &kDefault;
}

}  // namespace

SentinelLines::SentinelLines(TextSink& out) : out_(out), set_(default_forms()) { start(); }

SentinelLines::SentinelLines(TextSink& out, const SentinelWords& words) : out_(out) {
  if (same_words(words, SentinelWords{})) {
    set_ = default_forms();
  } else {
    own_set_ = std::make_shared<const FormSet>(build_forms(words, kMaxForms));
    set_ = own_set_.get();
  }
  start();
}

void SentinelLines::start() {
  const std::size_t forms = set_->forms.size();
  all_forms_ = forms == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << forms) - 1;
  new_line();
}

void SentinelLines::reset() noexcept {
  code_.reset();
  fence_free_ = {};
  breaks_ = nullptr;
  told_dead_bytes_ = 0;
  shared_code_bytes_ = 0;
  short_dead_pieces_ = 0;
  dead_lines_by_masks_ = 0;
  plain_dead_pieces_ = 0;
  told_pieces_ = 0;
  held_.clear();
  first_decided_ = false;
  last_exact_ = false;
  silent_ = false;
  late_ = false;
  suppressed_ = false;
  finished_ = false;
  emitted_ = 0;
  cp_bytes_[0] = cp_bytes_[1] = cp_bytes_[2] = cp_bytes_[3] = 0;
  cp_need_ = 0;
  rights_ = {};
  new_line();  // the line state, as start() sets it
}

void SentinelLines::clean_text(std::string_view s) { clean_run(s, {}); }

void SentinelLines::clean_run(std::string_view s, const text::stage1::MaskView& masks) {
  if (dead_ && nonempty_ && s.size() < kShortPiece && !(silent_ || suppressed_ || finished_) &&
      code_.feed_plain(s, masks)) {
    // More of a dead line, mid-line text with no backtick and no line break (most streamed pieces): one look
    // at the masks serves the tracker and the line. (Longer pieces seldom lack a line break: not asked.)
    ++plain_dead_pieces_;
    return emit(s);
  }
  judge_run(s, masks);
}

// clean_run() past its first test (out of line, so that the streamed pieces that pass it set up no frame).
void SentinelLines::judge_run(std::string_view s, const text::stage1::MaskView& masks) {
  if (silent_ || suppressed_ || finished_) return;
  if (dead_ && nonempty_ &&
      (masks ? masks.find(text::stage1::kNewlines, 0) == s.size()
             : s.size() <= kShortPiece && std::memchr(s.data(), '\n', s.size()) == nullptr)) {
    // More of a dead line that shows text, and no line break: what pass_dead_lines() would do with it.
    // Without masks only for a short piece (what the tidier gathers), where one memchr is cheap.
    if (!masks) ++short_dead_pieces_;
    code_.feed(s, masks);
    emit(s);
    return;
  }
  // A piece of a run the recognizer told of (most of an ordinary run between markup, as the tidier passes
  // it): its dead lines at once, up to a line that needs judging.
  std::size_t i = breaks_ != nullptr ? told_piece(s, masks) : 0;
  while (i < s.size()) {
    if (dead_) {
      i = pass_dead_lines(s, i, masks);
      continue;
    }
    if (line_fresh_ && (!first_decided_ || held_.empty()) && set_->dies_early(s, i)) {
      // As pass_dead_lines() would have judged it, had the line begun in the same piece as a dead one. Or the
      // first non-empty line, which rule (b) needs to begin with a form: as stepping it would, it is decided
      // and dies, and the blank lines held before it go on (all held_ holds before the first line), then the
      // line with the rest of the piece, in one call instead of one for its first byte and one for the rest.
      nonempty_ = true;
      last_exact_ = false;
      first_decided_ = true;
      die();
      continue;
    }
    line_fresh_ = false;
    step(static_cast<unsigned char>(s[i++]));
    if (silent_) return;
  }
}

// No rule can use the rest of a dead line: it is passed on, up to and with its break, and so are the lines
// after it that need no judging once the first line is decided and nothing is held: blank lines (passed on
// as they come) and lines that die at their first byte past ASCII spaces and decoration (FormSet::dies_early:
// `**Day 1`, `- item`; stepping them would only set dead_, nonempty_ and clear last_exact_, and a fence line
// among them is dead either way). All of it goes out in one piece, and the code tracker sees it in one
// feed. Returns where a line that needs judging starts (new_line() done), or s.size().
std::size_t SentinelLines::pass_dead_lines(std::string_view s, std::size_t i,
                                           const text::stage1::MaskView& masks) {
  const std::size_t from = i;
  bool fresh = false;
  for (;;) {
    std::size_t nl;
    if (masks) {
      nl = masks.find(text::stage1::kNewlines, i);
      if (nl == s.size()) nl = std::string_view::npos;
    } else {
      nl = s.find('\n', i);
    }
    const std::size_t end = nl == std::string_view::npos ? s.size() : nl;
    if (!nonempty_ && s.substr(i, end - i).find_first_not_of(" \t\r") != std::string_view::npos) {
      nonempty_ = true;
      last_exact_ = false;
      first_decided_ = true;  // if this is the first non-empty line, it is no sentinel line
    }
    if (nl == std::string_view::npos) {
      i = s.size();
      break;
    }
    i = nl + 1;
    fresh = true;
    if (!first_decided_ || !held_.empty()) break;
    while (i < s.size() && s[i] == '\n') ++i;
    if (i == s.size() || !set_->dies_early(s, i)) break;
    fresh = false;  // the line dies at its first byte past its left spaces and decoration
    nonempty_ = true;
    last_exact_ = false;
    if (breaks_ != nullptr && within(fence_free_, s)) {
      i = told_dead_lines(s, i, fresh);
      break;
    }
    if (masks) {
      i = dead_line_starts(s, i, masks, fresh);
      break;
    }
  }
  const std::string_view piece = s.substr(from, i - from);
  if (fence_free_.empty())
    code_.feed(piece, masks.sub(from, i - from));
  else
    track_code(piece, masks.sub(from, i - from));
  emit(piece);
  if (fresh) new_line();
  return i;
}

// The start of judge_run() for a piece with masks in the run fence_free_run() told of, with its breaks
// (breaks_ set), decided before anything moves and done in one pass: when the loop would begin it with
// pass_dead_lines() (the first line dead and showing text, the first line decided and nothing held; or fresh
// and dying at s[0], decided as the loop decides it, which releases the blank lines held before a first
// line), that goes past the piece's first line break and the breaks after it, to a line dying early, and
// told_dead_lines() through the listed breaks, up to a line that needs judging or the piece's end. The same
// state, counts and output as the loop, without its per-line dispatch. Returns where the loop goes on (a
// line that needs judging, new_line() done), s.size() when all of it went, 0 when the state does not allow.
std::size_t SentinelLines::told_piece(std::string_view s, const text::stage1::MaskView& masks) {
  const std::size_t n = s.size();
  if (!told_on_ || n == 0 || !masks || !within(fence_free_, s)) return 0;
  if (dead_) {
    if (!nonempty_ || !first_decided_ || !held_.empty()) return 0;
  } else if (!line_fresh_ || (first_decided_ && !held_.empty()) || !set_->dies_early(s, 0)) {
    return 0;
  }
  if (!dead_) {  // as judge_run() decides a fresh line that dies at its first byte
    nonempty_ = true;
    last_exact_ = false;
    first_decided_ = true;
    die();
  }
  std::size_t stop = n;  // where the loop goes on
  std::size_t j = masks.find(text::stage1::kNewlines, 0);
  if (j != n) {
    while (j < n && s[j] == '\n') ++j;
    if (j != n && !set_->dies_early(s, j)) {
      stop = j;
    } else if (j != n) {
      const std::less<const char*> lt;
      const char* const* next = breaks_->at;
      const char* const* const end = breaks_->at + breaks_->count;
      while (next != end && lt(*next, s.data() + j)) ++next;
      for (; next != end && lt(*next, s.data() + n); ++next) {
        std::size_t k = static_cast<std::size_t>(*next - s.data());
        while (k < n && s[k] == '\n') ++k;
        if (k == n) break;
        if (!set_->dies_early(s, k)) {
          stop = k;
          break;
        }
      }
      told_dead_bytes_ += stop - j;
    }
  }
  ++told_pieces_;
  const std::string_view piece = s.substr(0, stop);
  track_code(piece, masks.sub(0, stop));
  emit(piece);
  if (s[stop - 1] == '\n') new_line();
  return stop;
}

// The rest of pass_dead_lines() from i, a line's first byte that killed it, with nothing held and the first
// line decided: the loop above, with the next line's first byte (past its line breaks) read from the masks'
// line starts instead of finding each break and skipping the breaks after it. A line that dies early changes
// nothing here (nonempty_ is already set, last_exact_ already clear). Returns where a line that needs judging
// starts (fresh set), or s.size() (fresh when s ends in a line break, as the loop leaves it).
std::size_t SentinelLines::dead_line_starts(std::string_view s, std::size_t i,
                                            const text::stage1::MaskView& masks, bool& fresh) {
  for (;;) {
    const std::size_t p = masks.find_run_end(text::stage1::kNewlines, text::stage1::kNothing, i);
    if (p == s.size()) {
      fresh = s.back() == '\n';  // s[i] is no line break, so a break at the end lies past i
      return p;
    }
    if (!set_->dies_early(s, p)) {
      fresh = true;
      return p;
    }
    ++dead_lines_by_masks_;
    i = p;
  }
}

// The same, on the shadow tracker's word (fence_free_run's breaks): the lines begun after a break it did not
// list die at their first byte, so only the lines after listed breaks are looked at.
std::size_t SentinelLines::told_dead_lines(std::string_view s, std::size_t i, bool& fresh) {
  const std::less<const char*> lt;
  const char* const* next = breaks_->at;
  const char* const* const end = breaks_->at + breaks_->count;
  for (;;) {
    while (next != end && lt(*next, s.data() + i)) ++next;
    if (next == end || !lt(*next, s.data() + s.size())) {
      // No listed break in the rest of s: the loop would go to the end, fresh when s ends in a break (s[i]
      // is none).
      told_dead_bytes_ += s.size() - i;
      fresh = s.back() == '\n';
      return s.size();
    }
    std::size_t j = static_cast<std::size_t>(*next - s.data());
    while (j < s.size() && s[j] == '\n') ++j;
    told_dead_bytes_ += j - i;
    if (j == s.size() || !set_->dies_early(s, j)) {
      fresh = true;
      return j;
    }
    i = j;
  }
}

// code_.feed(s, masks), stepping only the first and last lines of a piece that lies in the recognizer's
// fence-free run (fence_free_run(), set). Its first line is stepped from this tracker's own state (markup
// removed before the piece, or tidied away, may make that line start differently here than in the input). If
// it ends outside a fence, both trackers stand at the state every line break outside a fence leaves (a line
// start, nothing open) right after the same input byte, and the bytes up to the piece's last line break are
// the same: they evolve alike, the shadow tracker opened no fence there, so at that last break this one is at
// the same line-start state again.
//
// When no fence can open or close on the piece's first line in this tracker (CodeTracker::line_is_text():
// mid-line text, or a line's start before a byte that opens no lead), that line is not stepped either: its
// break leaves the line-start state whatever it holds, and so does the piece's last line break.
void SentinelLines::track_code(std::string_view s, const text::stage1::MaskView& masks) {
  if (!masks || !within(fence_free_, s)) return code_.feed(s, masks);
  std::size_t from = 0;
  if (!s.empty() && code_.line_is_text(static_cast<unsigned char>(s[0]))) {
    const std::size_t last = masks.rfind(text::stage1::kNewlines, s.size());
    if (last == text::stage1::MaskView::npos) return code_.feed(s, masks);
    code_.end_text_line();
    shared_code_bytes_ += last + 1;
    from = last + 1;
  } else {
    const std::size_t first = masks.find(text::stage1::kNewlines, 0);
    const std::size_t last = first == s.size() ? first : masks.rfind(text::stage1::kNewlines, s.size());
    if (last == first) return code_.feed(s, masks);  // no whole line between: nothing to take
    code_.feed(s.substr(0, first + 1), masks.sub(0, first + 1));
    from = first + 1;
    if (!code_.in_fence()) {
      shared_code_bytes_ += last + 1 - from;
      from = last + 1;
    }
  }
  code_.feed(s.substr(from), masks.sub(from, s.size() - from));
}

void SentinelLines::finish() {
  if (finished_) return;
  finished_ = true;
  if (silent_ || suppressed_) return;
  if (!dead_ && nonempty_) {
    if (first_line_) {
      if (look_pending_ || look_ok_) return silence();  // the form ends the text
      first_decided_ = true;
    } else if (!code_line_ && rights_len_ != 0) {
      last_exact_ = true;
    }
  }
  if (last_exact_) return silence();
  release_all();
}

void SentinelLines::suppress() {
  suppressed_ = true;
  held_.clear();
  line_start_ = 0;
  holding_ = false;
}

// ------------------------------------------------------------------------------------------------ lines

void SentinelLines::step(unsigned char b) {
  code_.step(b);
  if (code_.in_fence()) code_line_ = true;
  if (b == '\n') return line_end();
  if (holding_)
    held_.push_back(static_cast<char>(b));
  else
    emit(std::string_view(reinterpret_cast<const char*>(&b), 1));

  if (cp_len_ == 0) cp_need_ = b < 0xC0 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
  cp_bytes_[cp_len_++] = b;
  if (cp_len_ < cp_need_) return;
  const std::string_view bytes(reinterpret_cast<const char*>(cp_bytes_), cp_len_);
  cp_len_ = 0;
  std::size_t len = 0;
  on_code_point(text::decode_at(bytes, 0, &len), bytes);
  if (silent_ || dead_) return;

  if (code_line_) return die();
  if (first_line_) {
    if (look_ok_) return silence();
    if (!left_alive_ && form_mask_ == 0 && !look_pending_) die();
  } else if (!left_alive_ && form_mask_ == 0 && rights_len_ == 0) {
    die();
  }
}

void SentinelLines::on_code_point(char32_t cp, std::string_view bytes) {
  const bool space = is_space(cp);
  if (!space && !nonempty_) first_content();
  const bool deco = !space && is_decoration(cp);

  // What follows a form that ended before this code point: rule (b)'s look-ahead, right decoration.
  if (look_pending_) {
    if (space) {
      if (++look_spaces_ > kMaxSpaces) look_pending_ = false, look_ok_ = true;
    } else {
      look_pending_ = false;
      if (!text::is_lowercase_letter(cp) && !text::is_decimal_digit(cp)) look_ok_ = true;
    }
  }
  std::uint8_t kept = 0;
  for (std::uint8_t k = 0; k < rights_len_; ++k) {
    Right r = rights_[k];
    const bool alive = space ? ++r.spaces <= kMaxSpaces : deco && ++r.deco <= kMaxDecoration;
    if (alive) rights_[kept++] = r;
  }
  rights_len_ = kept;

  // The left decoration, then the form.
  if (form_mask_ != 0) {
    advance_form(bytes);
  } else if (left_alive_) {
    if (space) {
      if (++left_spaces_ > kMaxSpaces) left_alive_ = false;
    } else if (deco) {
      if (++left_deco_ > kMaxDecoration) left_alive_ = false;
    } else {
      left_alive_ = false;
      form_mask_ = all_forms_;
      form_pos_ = 0;
      advance_form(bytes);
    }
  }
}

void SentinelLines::advance_form(std::string_view bytes) {
  for (const char c : bytes) {
    std::uint64_t next = 0;
    for (std::uint64_t m = form_mask_; m != 0; m &= m - 1) {
      const int i = std::countr_zero(m);
      const Form& f = set_->forms[static_cast<std::size_t>(i)];
      if (form_pos_ < f.text.size() && f.text[form_pos_] == (f.fold ? text::ascii::lower(c) : c))
        next |= std::uint64_t{1} << i;
    }
    form_mask_ = next;
    ++form_pos_;
  }
  bool ended = false;
  std::uint64_t longer = 0;
  for (std::uint64_t m = form_mask_; m != 0; m &= m - 1) {
    const int i = std::countr_zero(m);
    if (set_->forms[static_cast<std::size_t>(i)].text.size() == form_pos_)
      ended = true;
    else
      longer |= std::uint64_t{1} << i;
  }
  form_mask_ = longer;
  if (!ended) return;
  // A form ends here: the line may go on with right decoration, or (rule b) anything but Ll/Nd.
  bool have = false;
  for (std::uint8_t k = 0; k < rights_len_; ++k)
    have = have || (rights_[k].deco == 0 && rights_[k].spaces == 0);
  if (!have && rights_len_ < rights_.size()) rights_[rights_len_++] = Right{0, 0};
  look_pending_ = true;
  look_spaces_ = 0;
}

// The first character of a line that is not a space.
void SentinelLines::first_content() {
  nonempty_ = true;
  last_exact_ = false;
  if (!first_decided_) {
    first_line_ = true;
  } else if (line_start_ != 0) {
    // A later non-empty line: what was held before it (a sentinel line, blank lines) is not the end.
    emit(std::string_view(held_).substr(0, line_start_));
    held_.erase(0, line_start_);
    line_start_ = 0;
  }
}

void SentinelLines::line_end() {
  if (holding_)
    held_.push_back('\n');
  else
    emit("\n");
  cp_len_ = 0;
  if (!nonempty_) {
    // A blank line: held while it may lie between a sentinel line and the end, or before the first line.
    const bool keep = holding_ && (line_start_ != 0 || !first_decided_);
    if (!keep || held_.size() > kMaxHeldBlank) release_all();
  } else if (first_line_) {
    if (look_pending_ || look_ok_) return silence();  // a line end after the form: rule (b) holds
    first_decided_ = true;
    release_all();
  } else if (!code_line_ && rights_len_ != 0) {
    last_exact_ = true;  // hold it, and the blank lines after it, until a later non-empty line
  } else {
    release_all();
  }
  new_line();
}

void SentinelLines::new_line() {
  dead_ = false;
  line_fresh_ = true;
  nonempty_ = false;
  first_line_ = false;
  code_line_ = code_.in_fence();
  left_alive_ = true;
  left_deco_ = 0;
  left_spaces_ = 0;
  form_mask_ = 0;
  form_pos_ = 0;
  rights_len_ = 0;
  look_pending_ = false;
  look_ok_ = false;
  look_spaces_ = 0;
  cp_len_ = 0;
  holding_ = true;
  line_start_ = held_.size();
  if (code_line_) die();  // inside a fence: code, never a sentinel line
}

void SentinelLines::die() {
  dead_ = true;
  if (first_line_) {
    first_decided_ = true;
    first_line_ = false;
  }
  release_all();
}

void SentinelLines::silence() {
  silent_ = true;
  late_ = emitted_ != 0;
  held_.clear();
  line_start_ = 0;
  holding_ = false;
}

void SentinelLines::release_all() {
  emit(held_);
  held_.clear();
  line_start_ = 0;
  holding_ = false;
}

void SentinelLines::emit(std::string_view s) {
  if (s.empty()) return;
  emitted_ += s.size();  // first, so that passing it on is the last call (no frame for a streamed piece)
  out_.clean_text(s);
}

}  // namespace sigil::parse
