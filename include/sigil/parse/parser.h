// The streaming directive parser (spec sections 1-11).
//
// Feed a reply in chunks of any size; events go to the sink as soon as they are final. The parser keeps its
// state between chunks and never re-scans a byte it has released (spec 11.4): total work is linear in the
// reply's length for any chunking. It holds back only what could still be markup, within the caps of 11.3.
// It owns no threads and does no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/events.h"
#include "sigil/parse/grammar.h"
#include "sigil/text/stage1.h"

namespace sigil::parse {

struct ParserOptions {
  bool say_mode = false;                       // spec 6.1
  bool think_open = false;                     // the reply starts inside a hidden region (8.3)
  std::vector<std::string> denied_actions;     // canonical names policy forbids in this chat (12.6)
  std::size_t max_directives = 32;             // per reply, say blocks not counted (12.5)
  std::size_t tag_limit = 8 * 1024;            // an open tag, a comment, a CDATA section (2.8)
  std::size_t bracket_limit = 4 * 1024;        // bracket ARGS (2.8)
  std::size_t whitespace_limit = 4 * 1024;     // a longer whitespace run is released untidied (10.3)
  std::size_t hidden_opener_limit = 4 * 1024;  // a line-start hidden opener waiting for its line end (11.3)
  // Runs a valid `result_to: inline` directive (calculate) the moment it completes; the text it returns
  // stands where the directive stood, keeping the spaces and emphasis around it (10.2). Without a
  // resolver, or when it returns nothing (a failure), the directive's place is tidied like any other.
  std::function<std::optional<std::string>(const DirectiveEvent&)> inline_resolver;
  // The stage-1 kernel to scan with (text/stage1.h): unset, the best this CPU runs. Every kernel gives the
  // same events; tests set it to run each one through the parser.
  std::optional<text::stage1::Kernel> stage1_kernel;
  // Stage 2 reads markup that lies whole inside a fed chunk in place (parse/whole_markup.cpp) and appends the
  // bytes a body only holds in runs (parse/tag_construct.cpp). Off, every byte of markup goes through the
  // byte machine; the events and stats are the same either way, and tests compare.
  bool whole_markup = true;
  // With whole_markup: the spaces, tabs and line breaks between markup read whole and the next `<` or `[`
  // (`\n  ` between two `<react …/>`) go to the shadow code tracker and the tidier in one step each
  // (Parser::Impl::blank_gap). Off, they take the ordinary-text path; events and stats other than
  // blank_gaps are the same either way, and tests compare.
  bool blank_gaps = true;
  // With whole_markup: a tag's name that lies whole in the chunk is looked up whole (NameTable::match_whole:
  // a perfect hash over the registered names) instead of walking the name trie byte by byte. Off, the trie;
  // events and stats other than names_whole are the same either way, and tests compare.
  bool whole_names = true;
  // With whole_markup: a directive written as the last common one was, up to its only quoted value
  // (`<react emoji="`), is recognised by one compare with those bytes (parse/tag_prefix.h) instead of a name
  // lookup and an attribute scan. Off, the whole-tag path reads it; events and stats other than
  // tags_repeated are the same either way, and tests compare.
  bool repeated_tags = true;
};

// Work counters, for tests that assert linear work and bounded memory.
struct ParserStats {
  std::uint64_t bytes_in = 0;        // reply bytes fed
  std::uint64_t bytes_examined = 0;  // bytes stepped through a state machine (bulk-skipped bytes not counted)
  std::uint64_t bytes_replayed = 0;  // bytes fed through the machine a second time (bounded cases only)
  std::uint64_t text_bytes = 0;      // clean text bytes delivered (visible and hidden)
  std::uint64_t directives = 0;
  std::uint64_t diagnostics = 0;
  std::size_t max_held = 0;  // the most bytes held at once
  // Set at finish(): text runs the reply's tidier passed on whole from their start, with stage 1's masks, in
  // one call (the streaming fast path; say mode: 0).
  std::uint64_t direct_text_runs = 0;
  // Set at finish(): clean-text bytes the reply's sentinel judge did not run its own code tracker over,
  // because the recognizer's shadow tracker had seen them outside any fence (one code state per byte;
  // say mode: 0).
  std::uint64_t shared_code_bytes = 0;
  // Fed pieces (stage-1 windows) of valid text with no `<` or `[`, fed while no construct, opener or hidden
  // region was pending, that went to the ordinary run without the per-piece loop (case (c)'s streaming fast
  // path; the events are those of the general path), counted for tests.
  std::uint64_t ordinary_pieces = 0;
  // Set at finish(): clean-text bytes of dead lines the judge passed on without looking for their line
  // breaks, because the shadow tracker had read each line's first byte (SentinelLines::told_dead_bytes; say
  // mode: 0).
  std::uint64_t told_dead_bytes = 0;
  // Runs of blanks between markup read whole and the next opener taken by blank_gap() (ParserOptions::
  // blank_gaps), counted for tests.
  std::uint64_t blank_gaps = 0;
  // Ordinary runs (see ordinary_pieces; also those between markup) that were mid-line text with no backtick
  // and no line break: the shadow code tracker took them inline (text::CodeTracker::feed_plain), with no
  // search for their last line break and nothing told to the judge. Counted for tests.
  std::uint64_t plain_runs = 0;
  // Tag names stage 2 looked up whole (ParserOptions::whole_names), counted for tests.
  std::uint64_t names_whole = 0;
  // Tags recognised by the last common directive's prefix (ParserOptions::repeated_tags), counted for tests.
  std::uint64_t tags_repeated = 0;
  // Brackets read whole (ParserOptions::whole_markup) whose bytes waited for the byte after their `]` inside
  // the parser's construct state (up to 256 bytes), not in the held string; counted for tests.
  std::uint64_t brackets_inline = 0;
  // A `[` whose name no registered bracket name begins with (`[Lisboa Card]`), released as text by stage 2
  // in one step (ParserOptions::whole_markup) where the byte machine would step each byte; counted for tests.
  std::uint64_t brackets_not_named = 0;
  // Bytes of open tags and of text and markup bodies that stage 2 held in place, as views of the fed chunk
  // (ParserOptions::whole_markup), and of those the bytes copied into the parser (once each) because the
  // chunk ended, or the byte machine took the construct over, before the construct did. Counted for tests.
  std::uint64_t held_in_place = 0;
  std::uint64_t held_settled = 0;
};

struct NameIndex;

// A grammar's names indexed for byte-by-byte matching. Building it sorts and copies every name, so build
// it once per grammar and share it between parsers (one per reply); it is immutable and thread-safe to
// share. The grammar must outlive it.
class CompiledGrammar {
 public:
  explicit CompiledGrammar(const Grammar& grammar);
  const Grammar& grammar() const { return *grammar_; }
  const NameIndex& names() const { return *names_; }

 private:
  const Grammar* grammar_;
  std::shared_ptr<const NameIndex> names_;
};

// Holds its whole recognizer state inside itself (about 12 KiB; see kStateBytes): making a parser allocates
// nothing, so a parser per reply costs no heap allocation (a reply that needs none allocates none).
class Parser {
 public:
  Parser(const CompiledGrammar& grammar, EventSink& sink, ParserOptions options = {});
  // Compiles the grammar for this parser alone: convenient, but slower per reply.
  Parser(const Grammar& grammar, EventSink& sink, ParserOptions options = {});
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  void feed(std::string_view chunk);
  // Ends the reply. After this, feed and finish must not be called again until reset().
  void finish(FinishReason reason = FinishReason::Stop);
  // Readies the parser for the next reply, with the same grammar, sink and options: it then gives exactly
  // the events a newly constructed parser would, so a conversation can keep one parser for all its replies.
  // Whatever was fed and not finished is dropped without events; stats() start again from zero (a reference
  // stats() returned before does not survive reset()). Buffers keep their capacity, so a reused parser does
  // not allocate them again.
  void reset();

  const ParserStats& stats() const;

  // Counts one directive that reached the reply some other way (a native tool call) against the same
  // per-reply count as the directives fed (ParserOptions::max_directives, 12.5). True while the count is
  // within the limit; false: refuse it as the parser refuses its own, code over-limit, reason
  // "<action>: over the per-reply limit".
  bool admit_directive();

 private:
  class Impl;
  // The bytes the state (Impl, private to parse/) may take: parser.cpp checks its size against this bound at
  // compile time, so a member that outgrows it fails the build there, which is where to raise it. The margin
  // over today's size (12,160 bytes with libstdc++ on x86-64) is room for growth, never read or written.
  static constexpr std::size_t kStateBytes = 14 * 1024;
  Impl& impl() noexcept;
  const Impl& impl() const noexcept;

  std::unique_ptr<CompiledGrammar> own_grammar_;            // only when built from a bare Grammar
  alignas(std::max_align_t) std::byte state_[kStateBytes];  // the Impl, built in place by the constructor
};

}  // namespace sigil::parse
