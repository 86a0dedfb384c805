// The streaming recognizer's state (private to parse/): parser.cpp holds its setup and ordinary text,
// parser_input.cpp how a fed chunk reaches the byte machine (stage 1, bulk skips), one file per construct
// (tag_construct.cpp, json_construct.cpp, bracket_construct.cpp, comment_construct.cpp, hidden_region.cpp,
// say_block.cpp) its constructs, parser_results.cpp and parser_end.cpp its results and the reply's end,
// parser_reset.cpp reset().
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "close_tag_matcher.h"
#include "construct_state.h"
#include "emitter.h"
#include "mask_buffer.h"
#include "open_tag_scan.h"
#include "opener_scan.h"
#include "say_joiner.h"
#include "sigil/parse/json_scanner.h"
#include "sigil/parse/parser.h"
#include "sigil/parse/sentinel_lines.h"
#include "sigil/parse/tidier.h"
#include "sigil/text/byte_scan.h"
#include "sigil/text/code_tracker.h"
#include "sigil/text/stage1.h"
#include "sigil/text/utf8.h"
#include "tag_prefix.h"

namespace sigil::parse {

inline bool has_non_ws(std::string_view s) {
  for (char ch : s)
    if (!is_markup_space(ch)) return true;
  return false;
}

// A tag's body limit (2.8, 5.5); `tag` -1 for MCP.
inline std::size_t body_limit_of(const NameIndex& names, int tag) {
  return tag >= 0 ? names.tags[static_cast<std::size_t>(tag)].body_limit : names.mcp_body_limit;
}

class Parser::Impl {
 public:
  static constexpr std::size_t npos = std::string::npos;

  // `options` is moved from (Parser's constructor owns them): one move into opt_, no second copy.
  Impl(const CompiledGrammar& grammar, EventSink& sink, ParserOptions&& options);

  // For Parser::reset(): the state a new Impl with the same grammar, sink and options has, in place; every
  // buffer keeps its capacity (contents are overwritten before they are read). parser_reset.cpp.
  void reset();

  void feed(std::string_view chunk);
  void finish(FinishReason reason);
  const ParserStats& stats() const { return stats_; }
  bool admit_directive() { return ++counted_directives_ <= opt_.max_directives; }

 private:
  enum class Mode : unsigned char { Text, Hidden };
  using Kind = ConstructKind;

  // How a directive's markup ended, when not normally (11.6, 5.5): the reason it is refused.
  enum class Ending : unsigned char { Complete, CutOff, Unclosed, TooLong };

  // What the shadow machine knew just before a byte.
  struct Ctx {
    bool in_code = false;
    bool line_ws_only = false;
  };

  // Input.
  static constexpr std::size_t kUtf8NotesShown = 16;
  void feed_window(std::string_view window);
  void feed_windows(std::string_view chunk);
  void feed_sanitized(std::string_view window);
  void grow_masks(std::size_t blocks);
  void consume_piece(std::string_view piece);
  void consume(std::string_view s, const text::stage1::MaskView& masks);
  // In ordinary text with nothing pending: only `<` and `[` can start markup (consume()'s bulk step).
  bool in_ordinary_text() const noexcept {
    return mode_ == Mode::Text && c_.kind == Kind::None && !opener_.active();
  }
  // A run shorter than this goes to the judge without the shadow tracker's word (ordinary_run(): it rarely
  // holds two line breaks, the judge's tracker steps a piece's first and last lines anyway, and telling
  // costs a few calls); blank_gap() takes only runs this short, so the judge gets the calls it would get.
  static constexpr std::size_t kSharedCodeRun = 64;
  void ordinary_run(std::string_view run, const text::stage1::MaskView& masks);
  void ordinary_lines(std::string_view run, const text::stage1::MaskView& masks);
  void emit_fence_free(std::string_view run, const text::stage1::MaskView& masks);
  // The line state (line_ws_only_) after a run whose last line break is at `last_newline` (npos: none), as
  // on_byte() would leave it stepping the run byte by byte.
  void run_line_state(std::string_view run, std::size_t last_newline);
  void on_byte(unsigned char c);
  void dispatch(unsigned char c, const Ctx& ctx, bool fence);
  void replay(std::string_view bytes, std::uint64_t start_pos);
  // Stage 2 (whole_markup.cpp): markup at s[i] (`<` or `[`, ordinary text) read whole in place when it lies
  // inside s; returns the bytes consumed, 0 when the byte machine must read it. `masks`: stage 1's of s, if
  // any (the shadow tracker takes a kept tag's bytes on their word).
  // (Inline: one call less on a directive-dense reply's path.)
  [[gnu::always_inline]] std::size_t whole_markup(std::string_view s, std::size_t i,
                                                  const text::stage1::MaskView& masks) {
    if (code_.in_code()) return 0;  // the byte machine reads it (as text)
    if (s[i] != '<') return whole_bracket(s.substr(i));
    if (prefix_.kept() && opt_.repeated_tags) {
      const std::string_view rest(s.data() + i, s.size() - i);  // (i < s.size(): s[i] is the `<`)
      if (prefix_.match(rest)) {
        if (const std::size_t len = repeated_tag(rest)) return len;
      }
    }
    return whole_tag(s, i, masks, false);
  }
  // The tag at piece[i]; `masks`: stage 1's of the piece, if any. `in_body`: at a `<` inside a text body,
  // where an open tag is a trigger (2.8) that first releases the body; the piece before the `<` usually ends
  // with the body's held bytes (then their masks go with the released body).
  std::size_t whole_tag(std::string_view piece, std::size_t i, const text::stage1::MaskView& masks,
                        bool in_body);
  // `one_value`: validated against the kept prefix's resolved tag (TagPrefix::one_value()), whose directive
  // this is (one attribute under its key, with a value).
  void whole_directive(int index, std::uint64_t begin, std::size_t len, bool self_closing, bool one_value);
  [[gnu::noinline]] bool keep_prefix(std::string_view rest, int index, std::size_t name_end);
  std::size_t repeated_tag(std::string_view rest);
  std::size_t whole_bracket(std::string_view rest);
  std::size_t not_a_bracket(std::string_view rest, std::size_t dead);
  // After markup read whole, in ordinary text: the spaces, tabs and line breaks from s[i] up to the next `<`
  // or `[` (or the end of s), taken as ordinary_run() would take them but in one step per stage; returns how
  // many (0: none, or not only blanks, or a state that needs the general path).
  std::size_t blank_gap(std::string_view s, std::size_t i);
  // Stage 2 inside a text or markup body (tag_construct.cpp): the bytes from s[i] on that the body only
  // holds, appended in one piece, or a trigger read whole; returns how many (0: the byte machine reads s[i]).
  std::size_t body_run(std::string_view s, std::size_t i, const text::stage1::MaskView& masks);

  // Ordinary text.
  void text_byte(unsigned char c, const Ctx& ctx);
  void opener_byte(unsigned char c, const Ctx& ctx);
  void start_opener(unsigned char c, const Ctx& ctx);
  void close_tag_in_text(int tag_index, bool is_mcp, std::uint64_t begin);
  void emit_text(std::string_view s, const text::stage1::MaskView& masks = {});
  void emit_byte(unsigned char c) {
    char ch = static_cast<char>(c);
    emit_text(std::string_view(&ch, 1));
  }
  void gap(GapKind kind);
  void removed_markup(const text::CodeTracker::State& before, GapKind kind = GapKind::Other);
  Tidier& tidier();

  // Constructs.
  void begin_construct(Kind kind, std::uint64_t begin, std::string_view held, std::uint64_t clean_offset,
                       const text::CodeTracker::State& code, bool line_start);
  // Forgets the construct: only the parts it used, keeping every buffer's capacity (construct_state.h).
  void reset_construct() {
    cs_.reset();
    held_lag_ = 0;
  }
  // The construct's held bytes: c_.held, then the held_lag_ bytes at held_from_, in the piece being consumed
  // right before the current byte (an open tag and its text or markup body read by the fast paths, not yet
  // copied). They are copied (settle_held) before the byte machine reads a byte of the body and by the fast
  // path that reaches the piece's end, and set aside before a sink is called, so no view outlives the
  // caller's buffer: a body that lies in one piece is never copied, one that straddles a piece boundary once.
  std::size_t held_size() const { return c_.held.size() + held_lag_; }
  void settle_held() {
    c_.held.append(held_from_, held_lag_);
    stats_.held_settled += held_lag_;
    held_lag_ = 0;
  }
  void begin_from_opener(Kind kind);
  void release_all();
  void release_prefix(std::size_t cut);
  // The construct is abandoned at an opener found inside it (2.8); returns true when handled.
  bool trigger(OpenerScan::Kind k, unsigned char c, const Ctx& ctx);
  void start_trigger(unsigned char c, const Ctx& ctx);
  OpenerScan::Kind run_trigger(unsigned char c, const Ctx& ctx);

  void open_tag_byte(unsigned char c, const Ctx& ctx, bool fence);
  void complete_open_tag();
  void enter_body(BodyKind body);
  void text_body_byte(unsigned char c, const Ctx& ctx, bool fence);
  void complete_text_body(std::size_t body_end, std::size_t span_end, Ending ending = Ending::Complete);
  void markup_body_byte(unsigned char c);
  void json_start_byte(unsigned char c, const Ctx& ctx, bool fence);
  void json_becomes_text(unsigned char c, const Ctx& ctx, bool fence);
  void begin_json_value(unsigned char c);
  void json_body_byte(unsigned char c, const Ctx& ctx, bool fence);
  void json_after_value_byte(unsigned char c, const Ctx& ctx);
  void complete_json(std::size_t json_end, std::size_t span_end, bool unclosed,
                     Ending ending = Ending::Complete);
  void end_json_at_value(unsigned char c, const Ctx& ctx);
  Ctx restep_text_after_body(std::string_view tail, unsigned char c, const Ctx& ctx);
  void json_drop_byte(unsigned char c);
  void complete_oversized(std::uint64_t end);
  void bracket_byte(unsigned char c, const Ctx& ctx, bool fence);
  void bracket_end_byte(unsigned char c, const Ctx& ctx);
  void complete_bracket(Ending ending = Ending::Complete);
  void complete_bracket_here();
  void comment_byte(unsigned char c, const Ctx& ctx);
  bool hidden_wait_byte(unsigned char c);
  void hidden_byte(unsigned char c);
  void enter_hidden(std::uint64_t begin, const text::CodeTracker::State& code);
  // Starts looking for a hidden region's close tag at this '<' (inside a region, or on a waiting opener's
  // line).
  void start_hidden_close_scan(unsigned char c);
  // A line-start hidden opener whose line showed no region (8.1): the opener is released as text and the
  // bytes held after it are read again as ordinary text.
  void release_hidden_wait();

  // Results.
  // Reports `v` (consumed: its storage is swapped with the last event's, to be reused) as a directive event.
  void directive(int spelling, std::string_view action, Validated& v, std::uint64_t begin, std::uint64_t end,
                 std::uint64_t clean_offset, bool is_say = false, Ending ending = Ending::Complete);
  // directive()'s refusals (12.2, 12.5, 12.6, 11.6, 5.5) for one that is not the common case.
  void refuse_directive(bool is_say, Ending ending, bool interrupting, bool denied);
  bool inline_result(const DirectiveEvent& e);
  // The grammar's SpellingInfo of a spelling (nullptr for -1: MCP), from the name index when it has it.
  // (Inline: one call less a directive.)
  const SpellingInfo* spelling_info(int spelling) const {
    if (spelling < 0) return nullptr;
    const auto at = static_cast<std::size_t>(spelling);
    // Every spelling a name has is in the index; another (none the parser reports today) asks the grammar.
    if (at < names_.spelling_infos.size() && names_.spelling_infos[at] != nullptr) [[likely]]
      return names_.spelling_infos[at];
    return &grammar_.spelling(spelling);
  }
  // The pending tag's arguments, validated into scratch_ (valid until the next call).
  Validated& validate_construct(const Body& body);
  void silence_by_tag(std::uint64_t offset);
  // `end`: the interrupting directive's end (sanitized offset), where an open say block ends (6.2).
  void start_interrupt(std::uint64_t end);
  void start_say_block();
  void end_say_block(std::uint64_t end);
  void finish_text();
  void end_constructs(FinishReason reason);
  // Reports a diagnostic through one reused event (diag_), so the steady state allocates nothing.
  void diag(std::string_view code, std::uint64_t offset, std::string_view message);
  // The same for a code and a message written as string literals (most diagnostics): their bytes never
  // change, so when diag_ holds the same literals it is known by their addresses, without comparing bytes.
  template <std::size_t C, std::size_t M>
  void diag(const char (&code)[C], std::uint64_t offset, const char (&message)[M]) {
    diag_literal(std::string_view(code, C - 1), offset, std::string_view(message, M - 1));
  }
  void diag_literal(std::string_view code, std::uint64_t offset, std::string_view message);
  std::uint64_t input_offset(std::uint64_t pos) const {
    // No replacement so far (most replies): the offsets are the input's, without the search.
    return utf8_.replacements().empty() ? pos : utf8_.to_input_offset(pos);
  }
  std::uint64_t visible_count() const { return visible_.count(); }
  void note_held() { stats_.max_held = std::max(stats_.max_held, held_size() + opener_bytes_.size()); }

  // A member added below must also be set back in reset() (parser_reset.cpp), or a reused parser differs
  // from a new one (parser_reset_test).
  const CompiledGrammar& compiled_;
  const Grammar& grammar_;
  EventSink& sink_;
  ParserOptions opt_;
  const NameIndex& names_;
  std::vector<bool> denied_;  // per spelling
  bool deny_mcp_ = false;
  ParserStats stats_;

  text::Utf8Sanitizer utf8_;
  text::CodeTracker code_;
  text::CodeTracker::State pre_step_{};  // the shadow state before the current byte
  text::stage1::Kernel kernel_;
  MaskBuffer masks_{masks_inline_};  // stage 1's masks of the current window
  std::string_view window_;          // the window the sanitizer is cutting into pieces

  // Clean text pipelines: reply (say mode off); hidden and say streams (say mode on).
  Emitter visible_;
  Emitter hidden_out_;
  SentinelLines main_judge_;
  Tidier main_tidy_;
  // Say mode only (built on demand: most replies never need them).
  struct SayStreams {
    SayStreams(Emitter& hidden_out, Emitter& visible, std::size_t whitespace_limit)
        : hidden_judge(hidden_out),
          hidden_tidy(hidden_judge, whitespace_limit),
          say_judge(visible),
          joiner(say_judge) {}
    SentinelLines hidden_judge;
    Tidier hidden_tidy;
    SentinelLines say_judge;
    SayJoiner joiner;
  };
  std::optional<SayStreams> say_;
  std::optional<Tidier> block_tidy_;

  // State.
  std::uint64_t pos_ = 0;
  Mode mode_ = Mode::Text;
  bool line_ws_only_ = true;
  bool only_removed_ = true;  // 8.1: every earlier byte is whitespace or removed markup
  bool window_open_ = false;  // 2.6
  bool interrupted_ = false;
  bool chain_open_ = false;
  bool silent_by_tag_ = false;
  bool silence_reported_ = false;
  bool text_finished_ = false;
  bool finished_ = false;
  std::size_t counted_directives_ = 0;
  bool any_valid_directive_ = false;
  bool any_say_block_ = false;

  OpenerScan opener_;
  std::string opener_bytes_;  // ordinary text: the opener's bytes so far
  std::uint64_t opener_clean_offset_ = 0;
  text::CodeTracker::State opener_code_{};
  bool opener_line_start_ = false;
  // Inside a construct: where the trigger opener started.
  text::CodeTracker::State trigger_code_{};
  bool trigger_line_start_ = false;

  OpenTagScan tag_;
  TagPrefix prefix_;  // the last common directive's bytes up to its value (kept by reset())
  CloseTagMatcher close_;
  JsonScanner json_;
  // Reused for every directive: after the first few, validating and reporting a common directive allocates
  // nothing (their argument objects and strings keep their storage).
  Validated scratch_;
  DirectiveEvent event_;
  // The spelling whose action event_.action holds (nullptr: another). Kept by reset() as event_ is: the
  // grammar, and so the pointer, stays the parser's.
  const SpellingInfo* event_action_of_ = nullptr;
  UnsetSlots<StringArg, kMaxDeferredArgs> deferred_args_;  // event_'s deferred arguments (directive())
  Diagnostic diag_;
  // The literals diag_'s code and message were last assigned from (nullptr: from other bytes).
  const char* diag_code_literal_ = nullptr;
  const char* diag_message_literal_ = nullptr;

  ConstructState cs_;            // the pending construct, typed per construct
  Construct& c_ = cs_.common();  // what every construct has: kind, begin, held bytes
  // Held bytes not yet copied into c_.held (held_size()); held_from_ is read only while held_lag_ != 0.
  const char* held_from_ = nullptr;
  std::size_t held_lag_ = 0;

  OpenerScan hidden_scan_;
  std::uint64_t hidden_begin_ = 0;

  // 2.4: the name of a `none` tag just completed; its close tag after only whitespace belongs to it.
  std::string none_close_name_;
  bool interrupt_text_noted_ = false;
  std::uint64_t interrupt_pos_ = 0;
  std::size_t utf8_noted_ = 0;  // invalid UTF-8 replacements reported so far

  bool in_say_block_ = false;
  std::string say_name_ = "say";
  int say_spelling_ = -1;
  std::uint64_t say_begin_ = 0;
  std::uint64_t say_clean_offset_ = 0;

  // Last, apart from the state every piece touches: a typical window's masks (3 KiB), which masks_ uses.
  MaskBuffer::InlineMasks masks_inline_;
};

}  // namespace sigil::parse
