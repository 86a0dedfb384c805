// Reads the attributes of an open tag, byte by byte, after its name (spec 2.1-2.3).
//
// Promise: each byte is examined once; the result is the same for any chunking. The scanner rejects a tag at
// the first byte the grammar does not allow, or at a `<` outside quotes, or at a line break inside a quoted
// value (2.8); that byte is not consumed, so the caller can read it afresh as ordinary text.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inline_list.h"
#include "sigil/parse/grammar.h"

namespace sigil::parse {

class OpenTagScan {
 public:
  enum class Result : unsigned char {
    Pending,   // consumed
    Complete,  // the tag's `>` was consumed
    Reject,    // not consumed: the tag is abandoned before this byte
  };

  void start();
  Result step(unsigned char c);
  // Stage 2's whole-tag path: reads `rest`, the bytes right after the tag's name, when the tag ends inside
  // it on the same line in the common shapes (`key="value"` or `key='value'` pairs with no backslash in
  // them, valueless keys right before `>` or `/`, single spaces or tabs between them, `>` or `/>` at the
  // end). Returns the bytes it used, the `>` included, with the same attributes and self_closing() that
  // step() would give over them; 0 (and nothing to rely on) for anything else, which step() then reads.
  // The attributes are views (attribute_refs()), into `rest` or into the scanner's decoded copy of a value
  // with character references: valid until the next start() or scan_whole(), and only while `rest` is.
  // attributes() stays empty until materialize() copies them.
  std::size_t scan_whole(std::string_view rest) {
    if (!rest.empty() && rest[0] == '>') {  // a bare tag (`<actions>`, a body's `<voice>`): nothing to read
      start_whole();
      return 1;
    }
    return scan_attributes(rest);
  }
  // scan_whole() of a tag whose first `value_begin` bytes from its `<` (rest[0]) are a prefix read before
  // (TagPrefix: the name, the one key at [key_begin, key_begin + key_size), `=` and the quote): the value up
  // to its closing quote, then `/>`, or `>` when `bare_end`. Returns the bytes used from the `<`, with the
  // one attribute and self_closing() that scan_whole() would give; 0 for anything else (a value with a
  // character reference, an escape or a line break; more attributes; another end; the value's end out of
  // reach), which the general path then reads.
  std::size_t scan_repeat(std::string_view rest, std::size_t value_begin, std::size_t key_begin,
                          std::size_t key_size, bool bare_end);
  std::span<const AttributeRef> attribute_refs() const { return refs_.items(); }
  // Copies what scan_whole() read into attributes(), for a tag that is then kept in a construct.
  // Assigned in place, so the attributes' storage is kept from tag to tag.
  void materialize() {
    if (!refs_.empty()) copy_refs();  // (none for a bare tag: no call)
  }

  bool self_closing() const { return self_closing_; }
  // Inside a quoted value only a line break fails the tag, and no trigger counts (2.8).
  bool in_quoted_value() const;
  bool has_attributes() const { return !attributes_.empty() || !refs_.empty() || state_ == State::Key; }
  const std::vector<Attribute>& attributes() const { return attributes_; }
  std::vector<Attribute> take_attributes() { return std::move(attributes_); }
  // Swaps the attributes into `out` (cleared first), so both vectors keep their capacity for the next tag.
  void take_attributes_into(std::vector<Attribute>& out) {
    out.clear();
    out.swap(attributes_);
  }

 private:
  enum class State : unsigned char {
    AfterName,  // right after the name: WS, `>` or `/`
    Between,    // after WS: a key, WS, `>` or `/`
    Key,
    AfterKey,        // WS after a key: `=`, another key, `>` or `/`
    AfterEq,         // WS, then a value
    EqBackslash,     // `=\`: a backslash-quoted value if a quote follows
    Quoted,          // "..." or '...'
    QuotedEscape,    // a backslash inside "..." or '...'
    BsQuoted,        // \"...\" or \'...\'
    BsQuotedEscape,  // a backslash inside \"...\"
    Unquoted,
    UnquotedSlash,  // `/` inside an unquoted value: `/>` ends the tag
    AfterQuoted,    // right after a closing quote: WS, `>`, `/` or (2.1) another key
    Slash,          // after `/`: WS, then `>`
  };
  // start() without what only step() reads (its key, value and quote; step() is always start()ed anew).
  void start_whole() {
    state_ = State::AfterName;
    self_closing_ = false;
    attributes_.clear();
    refs_.clear();
  }
  void copy_refs();
  // scan_whole() of a tag with more than its `>`.
  std::size_t scan_attributes(std::string_view rest);
  void begin_key(unsigned char c);
  void end_value();
  // scan_whole(): a value with character references, decoded into decoded_ (`first`: the tag's first);
  // then the views of the decoded values, once the tag is read.
  [[gnu::noinline]] void add_decoded(std::string_view key, std::string_view value, bool first);
  [[gnu::noinline]] void view_decoded();

  State state_ = State::AfterName;
  unsigned char quote_ = 0;
  bool self_closing_ = false;
  std::string key_;
  std::string value_;
  std::vector<Attribute> attributes_;
  InlineList<AttributeRef, 8> refs_;  // scan_whole()'s attributes (a fresh parser's first tags allocate none)
  std::string decoded_;               // the values scan_whole() decoded, one after another
  struct Decoded {
    std::size_t attribute, offset, size;  // refs_[attribute]'s value is decoded_.substr(offset, size)
  };
  InlineList<Decoded, 4> decoded_at_;
};

}  // namespace sigil::parse
