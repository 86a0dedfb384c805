// The parser benchmark's inputs and harness pieces, shared by `sigil bench` and bench/parser_bench.cpp.
//
// Cases (README "Benchmarks"):
//   (a) 1 MiB of markup-free prose;
//   (b) 1 MiB holding 10,000 react directives in actions blocks;
//   (c) a 64 KiB (and a 4 MiB) reply fed in 16-byte chunks: the typical reply of (e) repeated;
//   (d) 256 KiB of 4,096 unclosed openers, `<actions>` and `<voice>` by turns, each a speculative body that
//       the next opener abandons (and 64 KiB of 1,024 of them, to show the cost is linear);
//   (e) a typical 2 KiB reply with two directives.
// Every generator is deterministic and returns exactly the number of bytes asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/events.h"
#include "sigil/parse/parser.h"
#include "sigil/text/stage1.h"

namespace sigil::app::bench {

inline constexpr std::size_t kProseBytes = std::size_t{1} << 20;         // (a)
inline constexpr std::size_t kDirectiveBytes = std::size_t{1} << 20;     // (b)
inline constexpr std::size_t kReacts = 10'000;                           // (b)
inline constexpr std::size_t kReactsPerBlock = 5;                        // (b)
inline constexpr std::size_t kStreamSmallBytes = std::size_t{64} << 10;  // (c)
inline constexpr std::size_t kStreamLargeBytes = std::size_t{4} << 20;   // (c)
inline constexpr std::size_t kStreamChunk = 16;                          // (c)
inline constexpr std::size_t kOpenerBytes = std::size_t{256} << 10;      // (d)
inline constexpr std::size_t kOpeners = 4'096;                           // (d)
inline constexpr std::size_t kTypicalBytes = 2'048;                      // (e)
inline constexpr std::size_t kTypicalDirectives = 2;                     // (e)

// (a): sentences of common words (a few with accents or an em dash), paragraphs split by blank lines; no
// `<`, `[`, `&`, backticks, tildes or sentinel words. `seed` picks another text of the same kind.
std::string prose(std::size_t bytes, std::uint64_t seed = 1);

// (b): `blocks = reacts / kReactsPerBlock` times a paragraph of prose, then an `<actions>` block holding
// kReactsPerBlock `<react emoji="…"/>` lines; the prose pads the reply to `bytes`.
std::string reacts_in_actions(std::size_t bytes = kDirectiveBytes, std::size_t reacts = kReacts);

// (e): a chat reply of kTypicalBytes with markdown (a list, bold, a link, inline code), a react directive
// in an actions block near the start and a `[REMEMBER:…]` near the end.
std::string typical_reply();

// (c): typical_reply() repeated (cut at a line end, padded with prose) to `bytes`.
std::string long_reply(std::size_t bytes);

// (d): `openers` times `<actions>` or `<voice>` (by turns) followed by words, each unit the same length.
std::string unclosed_openers(std::size_t bytes = kOpenerBytes, std::size_t openers = kOpeners);

// The built-in registry (MCP server `github` configured), compiled once.
const parse::CompiledGrammar& grammar();

// Parser options of a case: the defaults, except (b) and (c), whose replies hold far more directives than
// the per-reply limit of 32 (every directive is then validated as it would be in a short reply).
parse::ParserOptions options_for_many_directives();

// A sink that does the minimum: counts, keeps nothing.
class CountingSink final : public parse::EventSink {
 public:
  void on_text(std::string_view text, bool) override { text_bytes += text.size(); }
  void on_directive(const parse::DirectiveEvent& d) override {
    ++directives;
    valid_directives += d.valid ? 1 : 0;
  }
  void on_diagnostic(const parse::Diagnostic&) override { ++diagnostics; }
  void on_silence(std::uint64_t) override { silent = true; }
  void on_fallback() override {}
  void on_end(bool) override { ended = true; }

  std::uint64_t text_bytes = 0;
  std::uint64_t directives = 0;
  std::uint64_t valid_directives = 0;
  std::uint64_t diagnostics = 0;
  bool silent = false;
  bool ended = false;
};

// Parses one reply with a fresh Parser (the real use: one per reply), fed in `chunk`-byte pieces (0: whole).
void parse_reply(const parse::CompiledGrammar& grammar, const parse::ParserOptions& options,
                 std::string_view reply, std::size_t chunk, CountingSink& sink);

// A conversation's parser: one Parser for every reply, reset() before each reply but the first (the honest
// figure for a chat; parse_reply()'s fresh parser per reply also pays for building one).
class ReusedParser {
 public:
  ReusedParser(const parse::CompiledGrammar& grammar, const parse::ParserOptions& options)
      : parser_(grammar, sink, options) {}
  // Parses one reply, fed in `chunk`-byte pieces (0: whole); `sink` counts across replies.
  void parse(std::string_view reply, std::size_t chunk);

  CountingSink sink;

 private:
  parse::Parser parser_;
  bool used_ = false;
};

// The baseline: memchr over `data` for `absent`, a byte that does not occur in it (so it reads every byte).
char absent_byte(std::string_view data);
const void* memchr_pass(std::string_view data, char absent);

// The stage-1 limit, what no parser of these bytes can beat: the AVX2 structural index of `data` (its
// bitmaps written to `scratch`, resized as needed) and a SIMD UTF-8 validation of it, each alone. AVX2 when
// this CPU has it (the peer benchmark's limit), else stage 1's best kernel (limit_kernel()).
text::stage1::Kernel limit_kernel();
std::uint64_t index_pass(std::string_view data, std::vector<text::stage1::BlockMasks>& scratch);
bool utf8_pass(std::string_view data);

}  // namespace sigil::app::bench
