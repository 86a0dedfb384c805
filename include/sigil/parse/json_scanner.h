// Incremental structural tracker for a streaming `json` body (spec 5.4).
//
// The streaming parser feeds a JSON body to JsonScanner one byte at a time as it arrives, so it learns where
// the body's value(s) end without ever re-scanning bytes. The scanner does not build values and does not
// check the grammar beyond what it needs: nesting of {} and [], strings (", ', curly quotes), escapes,
// comments, and which token the innermost container expects next, which is what decides whether a line can
// still continue an incomplete value (5.4). The full reading, with repairs, is parse_lenient
// (json_lenient.h).
//
// Feeding starts at the body's first `{` or `[` (whitespace before it is accepted too). The caller strips an
// opening code-fence line (5.1) and judges a closing fence line after the value itself (5.4): at depth 0 a
// backtick is a Stray byte like any other text.
//
// The state is a few bytes plus a bit-stack of container kinds (512 levels, 64 bytes). Deeper nesting
// fails the scanner (parse_lenient fails the same input with "nesting too deep").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sigil::parse {

class JsonScanner {
 public:
  static constexpr int kMaxDepth = 512;

  // What one byte did.
  enum class Step : std::uint8_t {
    Continue,    // consumed; nothing to report
    ValueStart,  // a `{` or `[` at depth 0 opened a top-level value
    ValueEnd,    // a `}` or `]` closed a top-level value (depth back to 0), even a closer that did not
                 // match its opener: check failed(); parse_lenient then reports the error
    Stray,       // at depth 0: not whitespace, not a `,` between values, not a value start. Not consumed:
                 // the state is unchanged, so the caller may stop feeding here (5.4 "something else").
    Error,       // this byte failed the scanner: a closer that does not match its opener, or nesting past
                 // kMaxDepth. failed() stays true; tracking of strings and lines goes on.
  };

  // Which quote opened the current string.
  enum class Quote : std::uint8_t { None, Double, Single, CurlyDouble, CurlySingle };

  Step step(unsigned char b);

  // Bulk fast path inside a string: consumes the leading bytes of `bytes` that are plain string content and
  // returns how many. It stops before anything step() must see (this string's closing quote, a backslash,
  // a line feed, a 0xE2 lead byte in a curly-quoted string) and before `<` unless close_tag_is_content(),
  // because a close tag there ends the body (5.4). Returns 0 outside a string or after a backslash.
  std::size_t skip_string_bytes(std::string_view bytes);

  // Spec 5.4: while the value is incomplete, can a line whose first non-whitespace byte is `b` continue it
  // under the repairs of 5.3? Call it after the line's line feed (and any leading whitespace) were stepped.
  // Inside a string or a block comment every line can. Elsewhere it depends on what the innermost container
  // expects: a key (quote, 0xE2 curly lead, identifier start, or the closer), `:` after a key, a value
  // (quote, 0xE2, `{`, `[`, digit, `-`, a letter starting true/false/null/True/False/None, in an array also
  // `]`), `,` or the closer after a value; a `/` (comment) always; the innermost container's closer always,
  // since the reader takes it as the end of that container (a body that then fails is invalid rather than
  // shown). At depth 0 (no value open) only `{`, `[` and `,` are accepted.
  bool line_start_acceptable(unsigned char first_non_ws_byte) const;

  bool in_string() const { return quote_ != Quote::None; }
  Quote quote() const { return quote_; }
  bool string_opened_on_this_line() const { return in_string() && string_on_line_; }
  // Spec 5.4: a close tag inside a `"` string opened on the same line is string content.
  bool close_tag_is_content() const { return quote_ == Quote::Double && string_on_line_; }
  bool in_comment() const {
    return lex_ == Lex::LineComment || lex_ == Lex::BlockComment || lex_ == Lex::BlockStar;
  }
  int depth() const { return depth_; }
  // A top-level value has been closed and no later one is open.
  bool value_complete() const { return closed_values_ > 0 && depth_ == 0; }
  // Top-level values closed so far.
  std::size_t values_closed() const { return closed_values_; }
  bool failed() const { return failed_; }

  void reset() { *this = JsonScanner{}; }

 private:
  // What the innermost container expects next (outside strings, comments and bare words).
  enum class Expect : std::uint8_t {
    Top,       // depth 0
    ObjKey,    // after `{` or a `,` in an object: a key or `}`
    ObjColon,  // after a key
    ObjValue,  // after `:`
    ObjNext,   // after a member's value: `,` or `}`
    ArrValue,  // after `[` or a `,` in an array: a value or `]`
    ArrNext,   // after an element: `,` or `]`
  };
  // Lexical sub-state.
  enum class Lex : std::uint8_t {
    Normal,
    String,  // in a string (quote_ says which); escape_ and curly_match_ refine it
    Bare,    // in an unquoted key, number or literal
    Slash,   // saw `/` outside a string: a comment opener if `/` or `*` follows
    LineComment,
    BlockComment,
    BlockStar,   // in a block comment right after `*`
    CurlyLead,   // saw 0xE2 where a token may start: maybe an opening curly quote
    CurlyLead2,  // saw 0xE2 0x80
  };

  Step structural(unsigned char b);
  void token_done();  // a key or value token ended: advance the expectation
  bool innermost_is_object() const;
  void push(bool object);
  void pop();
  void open_string(Quote q);

  std::uint64_t kinds_[kMaxDepth / 64] = {};  // bit set = object, per level 1..kMaxDepth
  int depth_ = 0;
  int overflow_ = 0;  // levels opened past kMaxDepth (kinds unknown)
  std::size_t closed_values_ = 0;
  Expect expect_ = Expect::Top;
  Lex lex_ = Lex::Normal;
  Quote quote_ = Quote::None;
  std::uint8_t curly_match_ = 0;  // bytes of a closing curly quote matched so far inside a curly string
  bool escape_ = false;
  bool string_on_line_ = false;
  bool failed_ = false;
};

}  // namespace sigil::parse
