// Recognises the start of markup byte by byte: `<NAME`, `</NAME>`, `<!--`, `<![CDATA[`, `[NAME:`, `[NAME]`.
//
// One scanner serves two places: ordinary text, where a recognised opener starts a construct, and the
// inside of a speculative construct, where a recognised opener is an abandonment trigger (spec 2.8).
// Promise: it holds at most the longest registered name plus a few bytes (or, right after `<actions>`, one
// unregistered tag up to the tag limit, 2.6), gives up at the first byte that rules markup out, and
// examines each byte once. It never looks at code state: callers start it only outside code.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "name_table.h"
#include "sigil/parse/grammar.h"
#include "sigil/text/ascii.h"

namespace sigil::parse {

// The grammar's names, indexed for byte-by-byte matching.
struct NameIndex {
  explicit NameIndex(const Grammar& grammar);

  std::span<const TagName> tags;
  // tags[i].name in lower case: what a name the table matched is, written in any case (a construct's name).
  std::vector<std::string> tags_lower;
  std::span<const BracketName> brackets;
  // The grammar's SpellingInfo of each spelling a tag or bracket name has, by spelling index (nullptr for
  // one no name has): asked once per directive, a load instead of the grammar's virtual spelling() call.
  std::vector<const SpellingInfo*> spelling_infos;
  NameTable tag_table{true};       // name, any case -> index into tags
  NameTable bracket_table{false};  // name (upper case when case-insensitive) -> index into brackets
  bool brackets_ci = false;
  std::vector<std::string> mcp_servers;        // as configured
  std::vector<std::string> mcp_servers_lower;  // for matching
  std::size_t longest_tag = 0;
  std::size_t mcp_body_limit = 256 * 1024;
  std::size_t longest_mcp = 0;  // `mcp_` + longest server + `_` + 128

  // 5.6: the longest configured server s with `name` == "mcp_" s "_" tool, tool 1..128 bytes. -1 if none.
  int match_mcp(std::string_view lower_name, std::size_t* tool_begin) const;
  // Whether more name bytes could still make `lower_name` an MCP name.
  bool could_be_mcp(std::string_view lower_name) const;
};

// The bytes a tag name or attribute key may use (2.1): one table load per byte on every scanning path.
inline constexpr std::array<bool, 256> kNameBytes = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] =
        text::ascii::is_alnum(static_cast<char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
  return t;
}();
inline bool is_name_byte(unsigned char c) { return kNameBytes[c]; }
using text::ascii::is_markup_space;

class OpenerScan {
 public:
  enum class Kind : unsigned char {
    Pending,        // consumed; still undecided
    NotMarkup,      // the bytes before the current one are text; the current byte is NOT consumed
    TagOpen,        // `<NAME` + delimiter; the delimiter (WS, `>` or `/`) is NOT consumed
    CloseTag,       // `</NAME WS? >` of a registered name; consumed
    CommentOpen,    // `<!--`; consumed
    CdataOpen,      // `<![CDATA[`; consumed
    BracketOpen,    // `[NAME:`; consumed
    BracketBare,    // `[NAME]`; consumed
    Unregistered,   // 2.6: an unregistered tag right after `<actions>`, complete at its `>`; consumed
    HiddenTrigger,  // trigger mode: a line-start hidden-region opener followed by a line break; consumed
  };
  struct Options {
    bool trigger_mode = false;   // inside a construct: only what abandons it matters
    bool window_open = false;    // 2.6: right after `<actions>`, hold unregistered tags until `>`
    bool at_line_start = false;  // only spaces and tabs before the `<` on its line (8.1)
    std::size_t tag_limit = 8 * 1024;
  };

  explicit OpenerScan(const NameIndex& names) : names_(&names) {}

  // `c` is `<` or `[`, outside code.
  void start(unsigned char c, std::uint64_t offset, Options options);
  Kind step(unsigned char c);
  void reset() { state_ = State::Idle; }

  bool active() const { return state_ != State::Idle; }
  std::uint64_t start_offset() const { return start_; }
  std::size_t length() const { return length_; }  // bytes consumed, the `<` or `[` included
  // The tag or bracket index for TagOpen, CloseTag, BracketOpen, BracketBare; -1 for MCP names.
  int index() const { return index_; }
  bool is_mcp() const { return mcp_server_ >= 0; }
  int mcp_server() const { return mcp_server_; }
  std::string_view mcp_tool() const { return std::string_view(raw_name_).substr(mcp_tool_begin_); }
  const std::string& name() const { return name_; }  // lower case for tags; as written for brackets

  // For the end of a reply: what is pending.
  bool lone_start() const { return state_ == State::Lt || state_ == State::Bracket; }
  bool pending_close_tag() const {
    return state_ == State::CloseSlash || state_ == State::CloseName || state_ == State::CloseWs;
  }
  // A close tag in progress whose name so far is a prefix of `lower_name` (`</`, `</voi`, `</voice `).
  bool partial_close_of(std::string_view lower_name) const;

 private:
  enum class State : unsigned char {
    Idle,
    Lt,
    TagName,
    CloseSlash,
    CloseName,
    CloseWs,
    Bang,
    BangDash,
    Cdata,
    Bracket,
    BracketName,
    Unregistered,
    UnregisteredQuote,
    HiddenWs,
    HiddenAfterGt,
  };
  Kind resolve_tag_name(unsigned char delimiter);
  Kind resolve_close_name();
  bool add_name_byte(unsigned char c);
  bool tag_prefix_possible() const;

  const NameIndex* names_;
  Options options_;
  State state_ = State::Idle;
  std::uint64_t start_ = 0;
  std::size_t length_ = 0;
  std::string name_;
  std::string raw_name_;  // tag names as written (an MCP tool keeps its case, 5.6)
  int index_ = -1;
  int mcp_server_ = -1;
  std::size_t mcp_tool_begin_ = 0;
  unsigned char quote_ = 0;
  std::size_t cdata_matched_ = 0;
  int node_ = NameTable::kRoot;  // where the name so far leads in the tag or bracket table
};

}  // namespace sigil::parse
