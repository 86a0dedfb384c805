// Property-test support: a seeded random reply generator over the directive grammar (spec sections 1-11),
// random chunkings, and a harness that records every parser event.
//
// Everything is deterministic from a seed (std::mt19937_64): a failing case prints its seed, options,
// chunking and the reply as a C string literal, and SIGIL_PROPERTY_SEED / SIGIL_PROPERTY_CASES (read by the
// tests through property_seed() and property_cases()) replay it.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sigil/parse/events.h"
#include "sigil/parse/parser.h"
#include "support/run_parse.h"

namespace sigil::testing::gen {

// ------------------------------------------------------------------------------------------------ the
// generator

// The full grammar: prose, every directive dialect in valid and broken variants, wrappers, brackets, JSON
// bodies with repairs, MCP tags, say blocks, sentinels, hidden regions, comments, CDATA, code, and noise
// (stray `<` `[` `&` quotes, invalid UTF-8, NUL, truncations).
class ReplyGenerator {
 public:
  explicit ReplyGenerator(std::uint64_t seed) : rng_(seed) {}

  // One random reply; `max_items` bounds how many top-level pieces it strings together.
  std::string reply(int max_items = 24);

  // Pieces, public so tests can build their own shapes.
  std::string prose(int max_words = 14);  // ordinary prose: ASCII, multi-byte, emoji, punctuation, CRLF...
  std::string directive();                // any directive, valid or broken
  std::string tag_directive();            // `<name …/>`, `<name>body</name>` of every body kind
  std::string bracket_directive();        // `[NAME:args]`, nested, unclosed, links
  std::string json_directive();           // `<setMemory>{…}</setMemory>` and friends, with repairs
  std::string mcp_directive();            // `<mcp_server_tool …>{…}</…>`
  std::string json_value(int depth = 0);  // lenient JSON (with repairs sometimes)
  std::string say_block();
  std::string sentinel();
  std::string hidden_region();
  std::string comment();
  std::string code();
  std::string wrapper();
  std::string noise();
  std::string attr_value();           // a quoted or unquoted value, with references sometimes
  std::string broken(std::string s);  // a random breakage of well-formed markup

  std::mt19937_64& rng() { return rng_; }
  std::size_t below(std::size_t n);  // uniform in [0, n)
  bool chance(double p);
  // One of `choices`, each {weight, text}, drawn with one below(sum of the weights): a table of odds instead
  // of a chain of thresholds.
  std::string_view weighted(std::initializer_list<std::pair<std::size_t, std::string_view>> choices);
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  std::string random_case(std::string_view s);  // each ASCII letter upper or lower at random

 private:
  std::string word();
  std::string tag_name(std::string_view name);  // mostly as written, sometimes in another case
  std::string attrs(const std::vector<std::string>& keys);
  std::mt19937_64 rng_;
};

// A reply whose markup is known: prose with no `<`, `>`, `[`, `]`, backtick, `~`, `&` or sentinel word, with
// well-formed directives, wrappers, comments and hidden regions inserted. Every inserted construct carries a
// unique marker ("XQZ" + digits) that must never reach a text event.
struct MarkedReply {
  std::string reply;
  std::vector<std::string> markers;  // unique strings that only occur inside markup
  // The prose that must be shown, in order, as visible and hidden (say mode: outside say blocks) streams;
  // only meaningful when `complete` is true.
  std::string visible_prose;
  std::string hidden_prose;
  bool complete = true;  // false once an interrupting directive or a sentinel may cut the text short
};
MarkedReply marked_reply(ReplyGenerator& g, bool say_mode, int items = 16);

// Random chunk sizes covering `size` bytes: each in [1, max], with an empty chunk now and then.
std::vector<std::size_t> random_chunking(std::mt19937_64& rng, std::size_t size, std::size_t max);
// Chunks of exactly `n` bytes (the last one shorter).
std::vector<std::size_t> fixed_chunking(std::size_t size, std::size_t n);

// A C string literal for `s` (printable ASCII as is, everything else escaped), for failure messages.
std::string c_literal(std::string_view s, std::size_t max = 4000);
std::string describe_chunks(const std::vector<std::size_t>& sizes);

// SIGIL_PROPERTY_SEED (default `fallback`) and SIGIL_PROPERTY_CASES (default `fallback`).
std::uint64_t property_seed(std::uint64_t fallback);
int property_cases(int fallback);
// Seconds since `start`: what a property's report line prints (the tests assert counts, never times).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ------------------------------------------------------------------------------------------------ the
// harness

// Everything a parser told its sink for one reply.
struct EventLog {
  std::string visible;                   // concatenated visible text events
  std::string hidden;                    // concatenated hidden text events
  std::vector<std::string> text_events;  // every text event, visible and hidden, in order
  std::vector<bool> text_hidden;         // parallel to text_events
  std::vector<std::string> events;       // every other event as one JSON line, in order (spans, offsets...)
  std::vector<parse::DirectiveEvent> directives;
  // Parallel to `directives`: how many reply bytes had been fed when it arrived (the chunk being fed
  // included), or kAtFinish when it came from finish().
  std::vector<std::uint64_t> directive_fed;
  static constexpr std::uint64_t kAtFinish = ~std::uint64_t{0};
  std::vector<parse::Diagnostic> diagnostics;
  std::uint64_t text_before_finish = 0;  // visible + hidden text bytes emitted before finish() was called
  boost::json::object summary;           // as `sigil parse` prints it
  parse::ParserStats stats;
  // Protocol violations the sink saw (an event after on_end, a text event that is not valid UTF-8, a span
  // outside the reply, a clean_offset beyond the clean text emitted so far...). Empty when all is well.
  std::vector<std::string> problems;
};

// Counts what a parser says without storing the text (for replies of many MiB).
class CountingSink final : public parse::EventSink {
 public:
  void on_text(std::string_view text, bool hidden) override;
  void on_directive(const parse::DirectiveEvent& d) override;
  void on_diagnostic(const parse::Diagnostic& g) override { ++diagnostics[g.code]; }
  void on_silence(std::uint64_t) override { silent_event = true; }
  void on_fallback() override {}
  void on_end(bool s) override {
    ended = true;
    silent = s;
  }

  std::uint64_t visible_bytes = 0, hidden_bytes = 0, text_events = 0, invalid_text_events = 0;
  std::uint64_t visible_hash = 0xcbf29ce484222325u, hidden_hash = 0xcbf29ce484222325u;  // FNV-1a of the text
  std::uint64_t directives = 0, valid_directives = 0;
  std::map<std::string, std::uint64_t> diagnostics;  // by code
  std::map<std::string, std::uint64_t> errors;       // of invalid directives, by error
  std::map<std::string, std::uint64_t> actions;      // directives by action
  bool silent_event = false, ended = false, silent = false;
};

// Feeds `reply` to one parser in chunks of the given sizes (empty: whole), then finishes it.
EventLog run_events(std::string_view reply, const RunOptions& options, const std::vector<std::size_t>& sizes);

// The first difference between two logs of the same reply, or "" when they agree on everything 11.2 promises.
std::string first_difference(const EventLog& a, const EventLog& b);

// The first work counter of a and b that differs ("name x vs y"), or "": the bytes fed, examined and
// replayed, text bytes, directives, diagnostics and max_held; with `paths`, also the counters of the clean
// text's fast paths (direct text runs, shared code bytes, ordinary pieces, told dead bytes).
std::string stats_difference(const parse::ParserStats& a, const parse::ParserStats& b, bool paths = false);

// A stage-2 fast path: the RunOptions field that switches it (it sets the ParserOptions one) and the
// ParserStats counter that counts it. Every such path rides on whole markup: with it off, none is taken.
struct FastPath {
  bool RunOptions::*flag;
  std::uint64_t parse::ParserStats::*counter;
};

// `path` against the general path it replaces: `reply` in `sizes` with the flag off (the counter must stay
// 0), then on; "" when the events, the text events' splits and every work counter agree. Adds the counter's
// value with the flag on to `taken`.
std::string compare_fast_path(const std::string& reply, RunOptions o, const std::vector<std::size_t>& sizes,
                              FastPath path, std::uint64_t& taken);
// compare_fast_path over `cases` replies made by make(g, i) from seeds base + i, each with say mode (25 %)
// and a cut-off (10 %) at random, whole and in a random chunking of pieces up to 48 bytes; reports each
// failing seed (at most five) and returns how many failed.
int fast_path_property(std::uint64_t base, int cases,
                       const std::function<std::string(ReplyGenerator&, int)>& make, FastPath path,
                       std::uint64_t& taken);
// The fast path's property test: fast_path_property over property_cases(1500) replies from
// property_seed(seed), each made by dense(g) but every `general_every`-th (the n-th, the 2n-th, ...) by
// ReplyGenerator::reply(), fails no seed, and the path was taken more than `taken_per_case` times a reply on
// average (a property that never takes the path proves nothing).
void expect_fast_path_property(FastPath path, std::uint64_t seed, std::string (*dense)(ReplyGenerator&),
                               int general_every, std::uint64_t taken_per_case);

// compare_fast_path of `reply` fed whole, which must find no difference: how often the path was taken.
std::uint64_t times_taken(FastPath path, const std::string& reply);

// Case (b)'s shape: prose, an `<actions>` block of five `<react emoji="👍"/>` on their own indented lines,
// then blank lines and prose.
std::string actions_block_reply();
// times_taken(path, actions_block_reply()), once it is checked that with whole markup off the path is never
// taken there.
std::uint64_t actions_block_taken(FastPath path);

}  // namespace sigil::testing::gen
