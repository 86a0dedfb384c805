// The grammar interface the parser needs from an action registry.
//
// The parser recognises markup; it does not know what actions exist. A Grammar tells it which names count
// (tag names, bracket spellings, MCP servers), how each tag's body is read, and turns what was written into
// validated, typed arguments. `catalog::Registry` implements it; tests may implement small ones.
// Adding an action never means touching the parser: it means adding a spelling here.
#pragma once

#include <array>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/events.h"
#include "sigil/parse/unset_slots.h"

namespace sigil::parse {

// How the bytes after a tag's `>` are read (spec 2.4).
enum class BodyKind : unsigned char {
  None,     // complete at `>`
  Text,     // raw text up to the close tag, trimmed, references decoded
  Path,     // like Text, but a second non-blank line fails it
  Json,     // JSON value(s), or the body parameter under the Text rules when it does not start with { or [
  Markup,   // raw up to the close tag, kept exactly, never abandoned by triggers
  Content,  // parsed like ordinary text (say)
};

// What a registered tag name is for.
enum class TagRole : unsigned char {
  Action,    // a directive spelling
  Wrapper,   // `actions`: removable markup (2.6)
  Say,       // `say`: a say block in say mode, removable markup otherwise (6.1)
  Sentinel,  // `no-reply`, `no_reply` (7.1)
  Hidden,    // `think`, `thinking`, `reasoning`, `thought` (8.1)
};

// One registered tag name. `name` is lower case (tag names match ASCII case-insensitively).
struct TagName {
  std::string name;
  TagRole role = TagRole::Action;
  BodyKind body = BodyKind::None;
  std::size_t body_limit = 16 * 1024;  // bytes of body before abandonment (2.8) or invalidity (5.5)
  int spelling = -1;                   // index into the grammar's spellings, for Action and Say
  // `none` tags: a tag with no attributes and no `/` that misses a required parameter is text (2.4).
  bool has_required_params = false;
  // Json bodies: whether a non-JSON body is the spelling's body parameter (5.2) or makes it invalid.
  bool has_body_param = false;
  // Text bodies that a line break fails (2.8: remember, calculate). Json bodies read as text always are.
  bool single_line = false;
};

// One registered bracket spelling (`[NAME:args]`, section 3).
struct BracketName {
  std::string name;  // as written, upper case
  int spelling = -1;
  bool needs_argument = true;  // `[NAME]` alone is text when true (3.4)
};

// What the parser needs to know about a spelling once it is recognised.
struct SpellingInfo {
  std::string action;          // canonical action name (section 13)
  bool interrupts = false;     // 12.2
  bool inline_result = false;  // `result_to: inline`: its result stands where it stood (10.2)
};

// An attribute as written in an open tag (2.2, 2.3). `value` has character references decoded.
struct Attribute {
  std::string key;
  std::string value;
  bool has_value = false;  // false for a key written without `=`
};

// The same attribute as views: into the reply's bytes where it was read in place, or into the scanner's copy
// of a value whose character references it decoded. Valid only during the call they are passed to.
struct AttributeRef {
  std::string_view key;
  std::string_view value;
  bool has_value = false;
};

// Copies of views, for the paths that keep attributes or read them as Attributes.
inline std::vector<Attribute> to_attributes(std::span<const AttributeRef> refs) {
  std::vector<Attribute> out;
  out.reserve(refs.size());
  for (const AttributeRef& a : refs) out.push_back({std::string(a.key), std::string(a.value), a.has_value});
  return out;
}

// A tag's body as the parser read it.
struct Body {
  enum class Kind : unsigned char { Absent, Text, Json, JsonError } kind = Kind::Absent;
  std::string text;         // Text: the body parameter, trimmed, references decoded (Markup: kept exactly)
  boost::json::value json;  // Json: one parsed value (object or array)
  std::string error;        // JsonError: the JSON reader's message
};

// A stable diagnostic code plus a one-line message.
struct Note {
  std::string code;
  std::string message;
};

// Most arguments a validation defers (Validated::deferred).
inline constexpr std::size_t kMaxDeferredArgs = 8;

// The bytes of a Validated's deferred argument values, one after another. Up to kInline bytes live inside
// the object, so a fresh parser's first directives (a typical reply's bracket of 50 bytes) allocate nothing;
// more go to a string on the heap, once, whose storage then stays. Addressed by offset, so a copy of it (and
// of the Validated that holds it) stays whole.
class ArgArena {
 public:
  static constexpr std::size_t kInline = 256;

  std::size_t size() const noexcept { return size_; }
  void clear() noexcept { size_ = 0; }
  // Appends `bytes`; returns the offset they start at.
  std::size_t append(std::string_view bytes) {
    const std::size_t at = size_;
    if (heap_.empty() && at + bytes.size() <= kInline) {
      copy_bytes(inline_.data() + at, bytes);
    } else {
      if (heap_.empty()) {  // spills, once: the heap is used from now on (room to grow: one allocation)
        heap_.reserve(2 * (at + bytes.size()));
        heap_.assign(inline_.data(), at);
      }
      heap_.resize(at);
      heap_.append(bytes);
    }
    size_ = at + bytes.size();
    return at;
  }
  std::string_view view(std::size_t begin, std::size_t n) const noexcept {
    return std::string_view(heap_.empty() ? inline_.data() : heap_.data(), size_).substr(begin, n);
  }

 private:
  // A value is usually a few bytes (an emoji, a word): up to 16 are copied by two overlapping loads and
  // stores of 4 or 8 bytes that stay inside both buffers, not by a call of memcpy (about 35 instructions of
  // a directive's 2,100).
  static void copy_bytes(char* to, std::string_view from) noexcept {
    const std::size_t n = from.size();
    const char* p = from.data();
    if (n > 16) {
      std::memcpy(to, p, n);
    } else if (n >= 8) {
      copy_ends<std::uint64_t>(to, p, n);
    } else if (n >= 4) {
      copy_ends<std::uint32_t>(to, p, n);
    } else {
      for (std::size_t i = 0; i < n; ++i) to[i] = p[i];
    }
  }
  // n bytes (sizeof(Word) <= n <= 2 * sizeof(Word)) as the first and the last word, which may overlap.
  template <class Word>
  static void copy_ends(char* to, const char* p, std::size_t n) noexcept {
    Word head, tail;
    std::memcpy(&head, p, sizeof head);
    std::memcpy(&tail, p + n - sizeof tail, sizeof tail);
    std::memcpy(to, &head, sizeof head);
    std::memcpy(to + n - sizeof tail, &tail, sizeof tail);
  }

  std::array<char, kInline> inline_;  // [0, size_) set (left unset when made: always written first)
  std::string heap_;                  // non-empty once spilled
  std::size_t size_ = 0;
};

// The result of turning what was written into arguments (section 9).
struct Validated {
  // A deferred argument: a JSON string under `name` (a view into the registry, which outlives the parser),
  // its value arena[begin, begin + size).
  struct Deferred {
    std::string_view name;
    std::uint32_t begin = 0;
    std::uint32_t size = 0;
  };

  // Canonical names; converted values when valid, as written otherwise (9.4). Not current while
  // `args_deferred`: then the arguments are `deferred` (build_args() writes them here).
  boost::json::object args;
  bool valid = false;
  std::string error;        // one line, when !valid
  std::vector<Note> notes;  // duplicate-key, unknown-key, unknown-kind, ...
  // Set by a validation into a kept Validated (Grammar::validate_tag_into, validate_bracket_into) when the
  // result is valid and every argument a string: the arguments are deferred[0, deferred_count), their
  // values in `arena` (offsets, so a copy of a Validated stays whole), and no JSON was built.
  bool args_deferred = false;
  std::uint8_t deferred_count = 0;
  UnsetSlots<Deferred, kMaxDeferredArgs> deferred;  // [0, deferred_count) set
  ArgArena arena;

  // The deferred arguments as views (into this and the registry), written to `out`; returns their count.
  std::size_t string_args(std::span<StringArg, kMaxDeferredArgs> out) const {
    for (std::size_t i = 0; i < deferred_count; ++i)
      out[i] = StringArg{deferred[i].name, arena.view(deferred[i].begin, deferred[i].size)};
    return deferred_count;
  }
  // Makes `args` current (builds the deferred arguments).
  void build_args() {
    if (!args_deferred) return;
    UnsetSlots<StringArg, kMaxDeferredArgs> views;
    build_string_args(std::span<const StringArg>(views.data(), string_args(views.span())), args);
    args_deferred = false;
  }
};

// What a grammar resolved for a spelling's tag written with one attribute under a given key
// (Grammar::one_value_tag): opaque to the parser, valid as long as the grammar is.
struct OneValueTag {
  int spelling = -1;
  const void* resolved = nullptr;  // the grammar's own; nullptr: nothing resolved (validated in full)
};

class Grammar {
 public:
  virtual ~Grammar() = default;

  virtual std::span<const TagName> tag_names() const = 0;
  virtual std::span<const BracketName> bracket_names() const = 0;
  virtual bool brackets_case_insensitive() const = 0;
  // Configured MCP server names as configured (5.6); matched case-insensitively by the parser.
  virtual std::span<const std::string> mcp_servers() const = 0;
  // Body limit of MCP tags (5.6, 13).
  virtual std::size_t mcp_body_limit() const { return 256 * 1024; }

  virtual const SpellingInfo& spelling(int index) const = 0;
  // Index of the spelling whose action is `action` (canonical name), or -1. Used for policy (12.6).
  virtual std::vector<int> spellings_of(std::string_view action) const = 0;

  // A tag directive: attributes in written order, then the body.
  virtual Validated validate_tag(int spelling, std::span<const Attribute> attributes,
                                 const Body& body) const = 0;
  // The same result as validate_tag, written into `out` (whatever it held before is replaced). An
  // implementation may reuse out's storage (its argument object's table and keys, its strings) and defer the
  // arguments (Validated::args_deferred), so a caller that keeps one Validated across directives need not
  // allocate or build JSON for the common ones in the steady state.
  virtual void validate_tag_into(int spelling, std::span<const Attribute> attributes, const Body& body,
                                 Validated& out) const {
    out = validate_tag(spelling, attributes, body);
  }
  // The same for a tag without a body whose attributes are views (read in place, without copies). This
  // default copies them once into Attributes.
  virtual void validate_tag_refs_into(int spelling, std::span<const AttributeRef> attributes,
                                      Validated& out) const {
    validate_tag_into(spelling, to_attributes(attributes), Body{}, out);
  }
  // A tag without a body written with one attribute, `key`, and a value, over and over (the directive the
  // parser's repeated-tag path recognises by its prefix: parse/tag_prefix.h). one_value_tag() resolves what
  // does not depend on the value once (the action, the parameter `key` names, what its type checks), and
  // validate_one_value_into() validates each value against that, with validate_tag_refs_into()'s result
  // for the same attribute (the same arguments, error, notes). The defaults resolve nothing.
  virtual OneValueTag one_value_tag(int spelling, std::string_view key) const {
    static_cast<void>(key);
    return {spelling, nullptr};
  }
  // validate_tag_refs_into(t.spelling, {{key, value, true}}, out), where t is one_value_tag(t.spelling, k)
  // for a `k` of the same bytes as `key`.
  virtual void validate_one_value_into(const OneValueTag& t, std::string_view key, std::string_view value,
                                       Validated& out) const {
    const AttributeRef attribute{key, value, true};
    validate_tag_refs_into(t.spelling, std::span<const AttributeRef>(&attribute, 1), out);
  }
  // A bracket directive: ARGS exactly as written between `NAME:` and `]` (split and trimmed here, 3.3).
  // `has_args` is false for `[NAME]`.
  virtual Validated validate_bracket(int spelling, std::string_view args, bool has_args) const = 0;
  // The same result as validate_bracket, written into `out` (as validate_tag_into).
  virtual void validate_bracket_into(int spelling, std::string_view args, bool has_args,
                                     Validated& out) const {
    out = validate_bracket(spelling, args, has_args);
  }
  // An MCP tag `mcp_<server>_<tool>` (5.6): `server` as configured, `tool` as written.
  virtual Validated validate_mcp(std::string_view server, std::string_view tool,
                                 std::span<const Attribute> attributes, const Body& body) const = 0;
};

}  // namespace sigil::parse
