// The pending construct's state, typed per construct (private to parse/).
//
// At most one construct is pending at a time (parser.cpp). What every construct has (where it began, its
// held bytes) is `Construct`; what only some constructs use lives in a part of its own: an open tag and its
// name (`TagPart`), a body read up to its close tag (`BodyPart`), a JSON body's value tracking (`JsonPart`),
// a bracket's ARGS (`BracketPart`), a line-start hidden opener's wait (`WaitPart`). The parser reaches a part
// only through an accessor that marks it used, so forgetting a construct resets just the parts it touched
// (a bracket never pays for the JSON machinery) and keeps every buffer's capacity: no allocation per
// construct in the steady state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/grammar.h"
#include "sigil/text/code_tracker.h"

namespace sigil::parse {

inline constexpr std::size_t kNoIndex = std::string::npos;

enum class ConstructKind : unsigned char {
  None,
  OpenTag,
  TextBody,  // text, path, and json bodies read as text (5.2)
  MarkupBody,
  JsonStart,  // after a json tag's `>`: whitespace so far
  JsonFence,  // a backtick or tilde run that may open a fence line before the JSON (5.1)
  JsonFenceLine,
  JsonAfterFence,
  JsonBody,
  JsonDrop,  // past the body limit: dropping up to the close tag (5.5)
  Bracket,
  BracketEnd,  // `]` seen: final one byte later unless `(` follows (3.4)
  Comment,
  Cdata,
  HiddenWait,  // a line-start hidden opener waiting for its line break or close tag (8.1)
};

// An open tag: which name it is and what it carried (tags, bodies, hidden waits).
struct TagPart {
  int tag = -1;  // index into the name table's tags; -1 for MCP
  int mcp_server = -1;
  std::string mcp_tool;
  // Lower case, for the close tag: a registered tag read whole views the name index's copy (which outlives
  // the parser), one the byte machine read views own_name (copy_name()).
  std::string_view name;
  std::string own_name;
  std::vector<Attribute> attrs;
  bool self_closing = false;

  void copy_name(std::string_view n) {
    own_name.assign(n);
    name = own_name;
  }
  void reset() {
    tag = -1;
    mcp_server = -1;
    mcp_tool.clear();
    name = {};
    own_name.clear();
    attrs.clear();
    self_closing = false;
  }
};

// A body after the open tag's `>` (text, path, markup; a JSON body until it starts with `{` or `[`).
struct BodyPart {
  std::size_t body_begin = 0;          // index in held
  std::size_t first_nonws = kNoIndex;  // index in held of the body's first non-whitespace byte
  std::size_t first_newline = kNoIndex;
  std::size_t line_begin = 0;  // index in held where the current line starts
  int nonblank_lines = 0;
  bool single_line = false;
  bool line_has_content = false;
  bool second_line_lt = false;  // a path body: a second line starting with `<` (its close tag?)

  void reset() { *this = BodyPart{}; }
};

// A JSON body: the value scanner's companions (where values end, a `<` that may close, fences).
struct JsonPart {
  std::size_t value_end = 0;  // index in held just past the last complete value
  std::size_t lt_index = 0;   // after a value: the `<` that may start the close tag
  std::uint64_t lt_pos = 0;
  std::size_t fence_line_begin = 0;
  text::CodeTracker::State lt_code{};
  int tail_fence = 0;        // after a value: 0 none, 1 run, 2 fence line, 3 after it
  int tail_run = 0;          // length of that run
  bool json_line_ws = true;  // only whitespace so far on the body's current line
  bool after_value = false;
  bool lt_line_ws = false;
  bool lt_pending = false;  // an empty json body: a `<` that may start its close tag

  void reset() { *this = JsonPart{}; }
};

// A bracket directive `[NAME:ARGS]` (section 3).
struct BracketPart {
  // A bracket read whole (whole_bracket) of up to this many bytes waits for the byte after its `]` with its
  // bytes in ConstructState::bracket_bytes(), not in the construct's held string: a fresh parser's first
  // long bracket allocates nothing (a typical reply ends with one). Longer ones, and brackets the byte
  // machine reads, are held as every construct's are.
  static constexpr std::size_t kInlineBytes = 256;

  int bracket = -1;
  std::size_t args_begin = 0;
  std::size_t args_end = 0;
  int depth = 0;
  bool has_args = true;
  bool newline_seen = false;
  bool line_ws = true;
  std::size_t inline_size = 0;  // the bracket's bytes are ConstructState::bracket_bytes() when not 0

  void reset() { *this = BracketPart{}; }
};

// A line-start hidden opener waiting for its line break or its close tag (8.1).
struct WaitPart {
  std::size_t tag_end = 0;
  bool content = false;

  void reset() { *this = WaitPart{}; }
};

// What every construct has.
struct Construct {
  enum Part : unsigned char { kTag = 1, kBody = 2, kJson = 4, kBracket = 8, kWait = 16 };

  ConstructKind kind = ConstructKind::None;
  unsigned char parts = 0;         // the parts this construct touched (Part bits)
  bool line_start = false;         // only spaces and tabs before it on its line
  std::uint64_t begin = 0;         // reply offset (sanitized) of its first byte
  std::uint64_t clean_offset = 0;  // 11.5
  std::string held;                // its bytes so far
  text::CodeTracker::State code_at_begin{};
};

// The pending construct and its parts.
class ConstructState {
 public:
  Construct& common() { return c_; }
  const Construct& common() const { return c_; }
  TagPart& tag() { return use(Construct::kTag, tag_); }
  BodyPart& body() { return use(Construct::kBody, body_); }
  JsonPart& json() { return use(Construct::kJson, json_); }
  BracketPart& bracket() { return use(Construct::kBracket, bracket_); }
  WaitPart& wait() { return use(Construct::kWait, wait_); }
  // Where a bracket read whole waits (BracketPart::kInlineBytes), and what it wrote there.
  char* bracket_bytes() { return bracket_bytes_; }
  std::string_view bracket_inline() const { return {bracket_bytes_, bracket_.inline_size}; }

  // Forgets the construct: resets the parts it touched, keeps every buffer's capacity.
  void reset() {
    if (const unsigned char used = c_.parts; used != 0) {  // (none after an earlier reset: one test)
      if (used & Construct::kTag) tag_.reset();
      if (used & Construct::kBody) body_.reset();
      if (used & Construct::kJson) json_.reset();
      if (used & Construct::kBracket) bracket_.reset();
      if (used & Construct::kWait) wait_.reset();
    }
    c_.kind = ConstructKind::None;
    c_.parts = 0;
    c_.line_start = false;
    c_.begin = 0;
    c_.clean_offset = 0;
    c_.held.clear();
    c_.code_at_begin = {};
  }

 private:
  template <typename T>
  T& use(unsigned char bit, T& part) {
    c_.parts |= bit;
    return part;
  }

  Construct c_;
  TagPart tag_;
  BodyPart body_;
  JsonPart json_;
  BracketPart bracket_;
  WaitPart wait_;
  // Outside BracketPart so that its reset stays an assignment; never cleared, read only up to inline_size.
  char bracket_bytes_[BracketPart::kInlineBytes];
};

}  // namespace sigil::parse
