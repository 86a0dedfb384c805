// Stage 2's whole-markup path: an open tag, a close tag or a bracket up to its `]` that lies whole inside
// the piece being consumed is read in place (its name looked up whole, a quoted value skipped to its closing
// quote, a bracket's arguments to its `]`), and the parser is left exactly where the byte machine would be
// after the same bytes; what the construct becomes is then decided by the same code (complete_open_tag,
// close_tag_in_text, bracket_end_byte).
//
// Promise: it takes only shapes whose every byte the byte machine would read without a decision that
// depends on anything but the bytes (no line break, no trigger, no escape, within every limit); for
// anything else it returns 0 and the byte machine reads the markup from its first byte, as before. So
// events, diagnostics and stats do not change, whatever the chunking (tests/parse/whole_markup_test.cpp).
#include <algorithm>
#include <cstring>

#include "parser_impl.h"
#include "sigil/text/ascii.h"

namespace sigil::parse {

namespace {
// What ends a bracket's arguments here, or sends them to the byte machine: a nested bracket and a `<`
// (triggers, 2.8) and a line break (3.2).
constexpr text::ByteSet kBracketArgStops{"]<[\n"};
}  // namespace

// The common directive, read whole from begin to begin + len: validated and reported from the scanner's
// attributes (with `one_value`, its one attribute against what the grammar resolved for the kept prefix's
// tag and key: the same result). The removed tag leaves no trace in the shadow machine (2.8), so it never
// steps it.
[[gnu::always_inline]] inline void Parser::Impl::whole_directive(int index, std::uint64_t begin,
                                                                 std::size_t len, bool self_closing,
                                                                 bool one_value) {
  const TagName& spec = names_.tags[static_cast<std::size_t>(index)];
  const std::uint64_t clean = visible_count();
  pos_ = begin + len - 1;
  if (one_value) {
    const AttributeRef& a = tag_.attribute_refs()[0];
    grammar_.validate_one_value_into(prefix_.one_value(), a.key, a.value, scratch_);
  } else {
    grammar_.validate_tag_refs_into(spec.spelling, tag_.attribute_refs(), scratch_);
  }
  code_.mark_line_content();
  directive(spec.spelling, {}, scratch_, begin, begin + len, clean);
  // 2.4: its own close tag after only whitespace belongs to it.
  if (!self_closing) none_close_name_.assign(names_.tags_lower[static_cast<std::size_t>(index)]);
  note_held();
  pos_ = begin + len;
}

// After the common directive at rest[0] was read whole (its name ends at rest[name_end]), when it has one
// attribute, a quoted value without character references right before `/>` or `>`: its bytes up to that
// value become the prefix the next such tag is compared with (repeated_tag(), in ordinary text; the tag read
// here may have ended a body: the same bytes give the same decisions, the body's release aside). Kept only
// when rest holds TagPrefix::kBytes bytes (wants()) and the name is shorter than NameTable::kWholeBytes:
// then its lookup was whole exactly when whole_names is on and the table is built, and so it would be again.
// With the prefix goes what the grammar resolves for its tag and key (Grammar::one_value_tag), against
// which this directive and each repeat are validated. Returns whether a prefix was kept.
bool Parser::Impl::keep_prefix(std::string_view rest, int index, std::size_t name_end) {
  const std::span<const AttributeRef> refs = tag_.attribute_refs();
  if (refs.size() != 1 || !refs[0].has_value || name_end - 1 >= NameTable::kWholeBytes) return false;
  const char* value = refs[0].value.data();
  if (value <= rest.data() || value >= rest.data() + rest.size()) return false;  // a decoded copy
  const std::size_t key_begin = static_cast<std::size_t>(refs[0].key.data() - rest.data());
  const std::size_t size = static_cast<std::size_t>(value - rest.data());
  if (size > TagPrefix::kBytes) return false;
  prefix_.keep(rest, size, index, key_begin, refs[0].key.size(),
               opt_.whole_names && names_.tag_table.whole_ready(),
               grammar_.one_value_tag(names_.tags[static_cast<std::size_t>(index)].spelling, refs[0].key));
  return true;
}

std::size_t Parser::Impl::whole_tag(std::string_view piece, std::size_t at,
                                    const text::stage1::MaskView& masks, bool in_body) {
  const std::string_view rest = piece.substr(at);
  const bool closing = rest.size() > 1 && rest[1] == '/';
  if (closing && in_body) return 0;  // the body's close matcher and the trigger scanner read it
  const std::size_t name_begin = closing ? 2 : 1;
  int index = -1;
  std::size_t k;
  if (opt_.whole_names) {
    bool whole = false;
    k = name_begin + names_.tag_table.match_whole(rest.substr(name_begin), &index, &whole);
    stats_.names_whole += whole ? 1 : 0;
  } else {
    k = name_begin + names_.tag_table.match(rest.substr(name_begin), &index);
  }
  if (k == name_begin || k == rest.size()) return 0;
  if (index < 0) return 0;  // unregistered, MCP, or a prefix: the byte machine decides
  if (in_body) {
    // 2.8 inside a text body: a registered opener abandons it, except a hidden-region name (8.1: only at a
    // line start and before a line break, which the trigger scanner judges), a 2.5 repeat of the body's own
    // tag, or one that runs into the body limit before its delimiter.
    const BodyPart& b = cs_.body();
    if (names_.tags[static_cast<std::size_t>(index)].role == TagRole::Hidden) return 0;
    if (index == cs_.tag().tag && (b.first_nonws == npos || b.first_nonws == held_size())) return 0;
    if (held_size() + k - b.body_begin >= body_limit_of(names_, cs_.tag().tag)) return 0;
  }
  const std::uint64_t begin = pos_;
  const text::CodeTracker::State code = code_.snapshot();
  pre_step_ = code;
  if (closing) {
    if (rest[k] != '>') return 0;
    const std::size_t len = k + 1;
    opener_code_ = code;
    opener_clean_offset_ = visible_count();
    opener_line_start_ = line_ws_only_;
    line_ws_only_ = false;
    stats_.bytes_examined += len;
    stats_.max_held = std::max(stats_.max_held, len - 1);  // the opener's bytes before its `>`
    pos_ = begin + len - 1;                                // at the `>`, as on_byte() would be
    close_tag_in_text(index, false, begin);
    note_held();
    pos_ = begin + len;
    return len;
  }
  const char delimiter = rest[k];
  if (delimiter != ' ' && delimiter != '\t' && delimiter != '>' && delimiter != '/') return 0;
  const std::size_t used = tag_.scan_whole(rest.substr(k));
  if (used == 0) return 0;
  const std::size_t len = k + used;
  if (len >= opt_.tag_limit) return 0;
  if (in_body) {
    // The byte machine would hold `<NAME` in the body, then release the body before it (trigger()).
    stats_.max_held = std::max(stats_.max_held, held_size() + k);
    // The open tag and the body usually lie in the piece right before the `<` (held_lag_): released from
    // there, with stage 1's masks, never copied (set aside first: no view stays if a sink throws).
    const std::string_view lagging(held_from_, held_lag_);
    held_lag_ = 0;
    diag("abandoned", input_offset(c_.begin), "unfinished markup was released as text");
    if (c_.held.empty()) {
      emit_text(lagging, masks.sub(at - lagging.size(), lagging.size()));
    } else {
      // Held from an earlier piece, or by the byte machine. Its bytes may still be the piece's right before
      // the `<` (a caller that feeds one buffer in parts): then their masks go with them. Compared here.
      const std::size_t h = c_.held.size();
      const bool in_piece = masks && h <= at && std::memcmp(c_.held.data(), piece.data() + (at - h), h) == 0;
      emit_text(c_.held, in_piece ? masks.sub(at - h, h) : text::stage1::MaskView());
    }
    reset_construct();
  }
  const std::string_view bytes = rest.substr(0, len);
  const bool line_start = line_ws_only_;
  line_ws_only_ = false;
  stats_.bytes_examined += len;
  stats_.max_held = std::max(stats_.max_held, len - 1);  // held before the tag's `>`
  const TagName& spec = names_.tags[static_cast<std::size_t>(index)];
  const bool self_closing = tag_.self_closing();
  if (spec.role == TagRole::Action && (self_closing || spec.body == BodyKind::None) &&
      (self_closing || tag_.has_attributes() || !spec.has_required_params)) {
    // The common directive (`<react emoji="…"/>`) is complete here: validated and reported straight from
    // the scanner's attributes, as complete_open_tag() would after holding it in a construct.
    if (opt_.repeated_tags && prefix_.wants(rest) && keep_prefix(rest, index, k)) {
      whole_directive(index, begin, len, self_closing, true);
    } else {
      whole_directive(index, begin, len, self_closing, false);
    }
    return len;
  }
  if (spec.role == TagRole::Wrapper) {
    // `<actions>` (2.6) is removed markup, complete at its `>` whatever it carries: done here as
    // complete_open_tag() would do it, without first holding the tag in a construct (the shadow machine
    // never steps it: the removal restores the state before it).
    pos_ = begin + len - 1;
    removed_markup(code);
    window_open_ = !self_closing;
    note_held();
    pos_ = begin + len;
    return len;
  }
  tag_.materialize();  // the construct keeps them (complete_open_tag() takes them)
  // An action with a text or markup body goes straight into its body (complete_open_tag()): its bytes are
  // held in place (held_lag_), as body_run() holds the body's, unless they end the piece.
  const bool in_place =
      spec.role == TagRole::Action && !self_closing && at + len < piece.size() &&
      (spec.body == BodyKind::Text || spec.body == BodyKind::Path || spec.body == BodyKind::Markup);
  begin_construct(Kind::OpenTag, begin, in_place ? std::string_view() : bytes, visible_count(), code,
                  line_start);
  held_from_ = piece.data() + at;
  held_lag_ = in_place ? len : 0;
  stats_.held_in_place += held_lag_;
  TagPart& t = cs_.tag();
  t.tag = index;
  t.mcp_server = -1;
  t.name = names_.tags_lower[static_cast<std::size_t>(index)];  // the name as written, in lower case
  // The shadow machine steps every byte of the tag, as on_byte() would, unless complete_open_tag() is sure
  // to restore it to the state before the tag (a removed tag leaves no trace in it).
  const TagRole role = spec.role;
  const bool restored = self_closing
                            ? role != TagRole::Hidden
                            : role == TagRole::Wrapper || role == TagRole::Sentinel || role == TagRole::Say;
  if (!restored) {
    // A tag on a line past its lead holds no byte that moves the state (no line break on this path, a
    // backtick only inside a quoted value): feed_plain() takes it on stage 1's word (no backtick in its
    // masks), else skip_plain() in one call, as stepping would.
    if (!code_.feed_plain(bytes, masks.sub(at, len))) {
      const std::size_t plain = code_.skip_plain(bytes);
      if (plain != bytes.size()) code_.feed(bytes.substr(plain));
    }
  }
  pos_ = begin + len - 1;
  complete_open_tag();
  note_held();
  pos_ = begin + len;
  return len;
}

// A tag that begins with the kept prefix (TagPrefix): its value and end read by scan_repeat(), then what the
// general path does for the common directive (whole_tag()) with the same effects and counts; 0 (nothing
// done) for anything scan_repeat() leaves to the general path.
std::size_t Parser::Impl::repeated_tag(std::string_view rest) {
  const int index = prefix_.tag();
  const TagName& spec = names_.tags[static_cast<std::size_t>(index)];
  const std::size_t len = tag_.scan_repeat(rest, prefix_.size(), prefix_.key_begin(), prefix_.key_size(),
                                           spec.body == BodyKind::None);
  if (len == 0 || len >= opt_.tag_limit) return 0;
  stats_.names_whole += prefix_.name_whole() ? 1 : 0;
  ++stats_.tags_repeated;
  pre_step_ = code_.snapshot();
  line_ws_only_ = false;
  stats_.bytes_examined += len;
  stats_.max_held = std::max(stats_.max_held, len - 1);  // held before the tag's `>`
  whole_directive(index, pos_, len, tag_.self_closing(), true);
  return len;
}

// The whitespace between removed tags (`\n  ` between two `<react …/>`) cannot be shown (the tidier drops or
// collapses it), cannot open a construct, and moves no code state but the line's: ordinary_run() would send
// it through the shadow tracker's walk along the masks, the line state's, emit_text()'s tests for text that
// is not whitespace, and the tidier's search for plain text, for a few bytes. Taken here only when the run
// reaches the next `<` or `[` (or the end of s), so the run after it is what ordinary_run() would get, and
// only from a code state where the tracker need not step it (CodeTracker::feed_blanks, after markup that
// was removed from ordinary text). Each byte is looked at once here; a run refused is read by
// ordinary_run() as before.
std::size_t Parser::Impl::blank_gap(std::string_view s, std::size_t i) {
  if (!opt_.blank_gaps || !in_ordinary_text()) return 0;
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t k = i;
  std::size_t last_break = npos;
  const std::size_t stop = std::min(n, i + kSharedCodeRun);
  for (; k < stop; ++k) {
    const char c = p[k];
    if (c == '\n')
      last_break = k;
    else if (c != ' ' && c != '\t')
      break;
  }
  if (k == i || k - i == kSharedCodeRun || (k < n && p[k] != '<' && p[k] != '[')) return 0;
  const std::size_t len = k - i;
  if (!code_.feed_blanks(len, last_break == npos ? npos : last_break - i)) return 0;
  if (last_break != npos) line_ws_only_ = true;  // run_line_state(): blanks after it keep it so
  // emit_text() of whitespace: it changes none of the flags that wait for text, and goes to the tidier.
  // (The main tidier without tidier()'s call unless say mode picks one: a directive-dense reply comes here
  // between every two directives.)
  if (!interrupted_ && !silent_by_tag_) (opt_.say_mode ? tidier() : main_tidy_).blanks(s.substr(i, len));
  pos_ += len;
  ++stats_.blank_gaps;
  return len;
}

std::size_t Parser::Impl::whole_bracket(std::string_view rest) {
  std::size_t k = 1;
  int node = NameTable::kRoot;
  for (; k < rest.size(); ++k) {
    const char c = rest[k];
    if (!text::ascii::is_alnum(c) && c != '_') break;
    const char b = names_.brackets_ci ? text::ascii::upper(c) : c;
    node = names_.bracket_table.walk(node, static_cast<unsigned char>(b));
    if (node == NameTable::kDead) return not_a_bracket(rest, k);
  }
  if (k == 1 || k == rest.size() || rest[k] != ':') return 0;
  const int index = names_.bracket_table.value(node);
  if (index < 0) return 0;
  const std::size_t args_begin = k + 1;
  const std::size_t close = kBracketArgStops.find_first(rest, args_begin);
  if (close == text::ByteSet::npos || rest[close] != ']') return 0;
  if (close - args_begin >= opt_.bracket_limit) return 0;
  const std::size_t len = close + 1;
  const std::string_view bytes = rest.substr(0, len);

  const std::uint64_t begin = pos_;
  const text::CodeTracker::State code = code_.snapshot();
  pre_step_ = code;
  // Its bytes wait for the next byte in the construct state when they fit (ConstructState::bracket_bytes),
  // else in the held string.
  const bool fits = len <= BracketPart::kInlineBytes;
  begin_construct(Kind::BracketEnd, begin, fits ? std::string_view() : bytes, visible_count(), code,
                  line_ws_only_);
  BracketPart& b = cs_.bracket();
  if (fits) {
    std::memcpy(cs_.bracket_bytes(), bytes.data(), len);
    b.inline_size = len;
    ++stats_.brackets_inline;
  }
  b.bracket = index;
  b.args_begin = args_begin;
  b.args_end = close;
  b.line_ws = false;  // the `]` is no space
  line_ws_only_ = false;
  stats_.bytes_examined += len;
  code_.feed(bytes);  // final only at the next byte, which bracket_end_byte() reads from the restored state
  pos_ = begin + len;
  stats_.max_held = std::max(stats_.max_held, len + opener_bytes_.size());  // note_held() of the bytes held
  return len;
}

// `[` and the name bytes up to rest[dead], where no registered bracket name can go on (`[Lisboa Card]`): the
// byte machine would hold them as an opener and release them as text at that byte (OpenerScan: NotMarkup),
// one byte at a time; done here in one step with the same effects (the shadow tracker, the line state, the
// opener's bookkeeping, the stats and one emit_text() of the same bytes, without masks as the opener's).
// Not when a blank follows: after markup read whole consume() would take it as a gap (blank_gap), which the
// byte machine does not.
std::size_t Parser::Impl::not_a_bracket(std::string_view rest, std::size_t dead) {
  const std::size_t len = dead + 1;
  if (len < rest.size() && (rest[len] == ' ' || rest[len] == '\t' || rest[len] == '\n')) return 0;
  const std::string_view bytes = rest.substr(0, len);
  pre_step_ = code_.snapshot();
  opener_code_ = pre_step_;
  opener_line_start_ = line_ws_only_;
  opener_clean_offset_ = visible_count();
  code_.feed(bytes);
  line_ws_only_ = false;  // `[` is no blank
  stats_.bytes_examined += len;
  stats_.max_held = std::max(stats_.max_held, held_size() + dead);  // the opener's bytes before rest[dead]
  pos_ += dead;                                                     // at rest[dead], as on_byte() would be
  emit_text(bytes);
  ++pos_;
  ++stats_.brackets_not_named;
  return len;
}

}  // namespace sigil::parse
