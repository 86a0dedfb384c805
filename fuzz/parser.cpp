// libFuzzer target for the streaming directive parser (spec 11.2: chunking never changes the result).
//
// Input: two option bytes, then the reply.
//   byte 0, flags: bit 0 say mode, bit 1 think_open, bit 2 finish reason length (cut off), bit 3 deny
//           `react` and `search`, bit 4 small caps (tag, bracket, whitespace and hidden-opener limits of a
//           few dozen bytes, so that short inputs reach them), bit 5 at most 2 directives per reply, bits 6-7
//           the stage-1 kernel of the chunked run (scalar, sse2, avx2, avx512; the best one when this CPU
//           lacks it);
//   byte 1, chunking: 0 feeds the reply one byte at a time, anything else seeds an xorshift that draws chunk
//           sizes 1..67.
// The reply is parsed whole, then in those chunks, each time with a recording sink. Checks, on any input:
// - the summary (as `sigil parse` prints it) is identical;
// - the concatenated visible text and the concatenated hidden text are identical;
// - the directive, diagnostic, silence, fallback and end events come in the same sequence with the same
//   fields (spans and clean_offset included);
// - every text event is non-empty valid UTF-8; on_end comes exactly once, last;
// - stats: bytes_in is the reply's length, and bytes_examined <= 8 * bytes_in + 64 (linear work);
// - the whole run gives the same summary, text, events and work counters with ParserOptions::whole_markup
//   off (every byte of markup through the byte machine) as with it on.
// While a known parser bug is open, SIGIL_FUZZ_IGNORE=silence-offset in the environment compares silence
// events without their offsets, so that a run can look for other bugs.
#include "sigil/parse/parser.h"

#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "sigil/catalog/registry.h"
#include "sigil/parse/summary.h"
#include "sigil/text/utf8.h"

namespace {

namespace parse = sigil::parse;

// Prints both sides (the first 2,000 bytes of each) before trapping.
#define FUZZ_CHECK_EQ(a, b)                                                                                 \
  do {                                                                                                      \
    if (!((a) == (b))) {                                                                                    \
      std::fprintf(stderr, "%s:%d: check failed: %s == %s\n  whole: %.2000s\n  other: %.2000s\n", __FILE__, \
                   __LINE__, #a, #b, std::string(a).c_str(), std::string(b).c_str());                       \
      __builtin_trap();                                                                                     \
    }                                                                                                       \
  } while (0)

// The conformance suite's MCP servers, so that `<mcp_github_…>` tags are reachable.
const parse::CompiledGrammar& compiled_grammar() {
  static const sigil::catalog::Registry registry = [] {
    sigil::catalog::RegistryOptions o;
    o.mcp_servers = {"brave-search", "github", "my_server", "context7"};
    return sigil::catalog::Registry::builtin(o);
  }();
  static const parse::CompiledGrammar grammar(registry);
  return grammar;
}

bool ignoring(const char* what) {
  static const char* const ignore = std::getenv("SIGIL_FUZZ_IGNORE");
  return ignore != nullptr && std::strstr(ignore, what) != nullptr;
}

// Records everything that must not depend on the chunking; text only as concatenations.
class RecordingSink final : public parse::SummarySink {
 public:
  void on_text(std::string_view text, bool hidden) override {
    FUZZ_CHECK(!ended());
    FUZZ_CHECK(!text.empty());
    FUZZ_CHECK(sigil::text::is_valid_utf8(text));
    parse::SummarySink::on_text(text, hidden);
    (hidden ? hidden_ : visible_).append(text);
  }
  void on_directive(const parse::DirectiveEvent& d) override {
    FUZZ_CHECK(!ended());
    FUZZ_CHECK(d.span_begin <= d.span_end);
    FUZZ_CHECK(d.valid == d.error.empty());
    parse::SummarySink::on_directive(d);
    boost::json::object o = parse::directive_event_json(d);
    o["spelling"] = d.spelling;
    o["interrupts"] = d.interrupts;
    events_.push_back(std::move(o));
  }
  void on_diagnostic(const parse::Diagnostic& g) override {
    FUZZ_CHECK(!ended());
    FUZZ_CHECK(!g.code.empty());
    parse::SummarySink::on_diagnostic(g);
    boost::json::object o = parse::diagnostic_json(g);
    o["event"] = "diagnostic";
    events_.push_back(std::move(o));
  }
  void on_silence(std::uint64_t offset) override {
    FUZZ_CHECK(!ended());
    parse::SummarySink::on_silence(offset);
    boost::json::object o{{"event", "silence"}};
    if (!ignoring("silence-offset")) o["offset"] = offset;
    events_.push_back(std::move(o));
  }
  void on_fallback() override {
    FUZZ_CHECK(!ended());
    parse::SummarySink::on_fallback();
    events_.push_back(boost::json::object{{"event", "fallback"}});
  }
  void on_end(bool silent) override {
    FUZZ_CHECK(!ended());
    parse::SummarySink::on_end(silent);
    events_.push_back(boost::json::object{{"event", "end"}, {"silent", silent}});
  }

  const std::string& visible() const { return visible_; }
  const std::string& hidden() const { return hidden_; }
  const boost::json::array& events() const { return events_; }

 private:
  std::string visible_;
  std::string hidden_;
  boost::json::array events_;
};

struct Run {
  std::string summary;
  std::string visible;
  std::string hidden;
  std::string events;
  parse::ParserStats stats;
};

class ChunkSizes {
 public:
  explicit ChunkSizes(std::uint8_t seed) : state_(seed == 0 ? 0 : 0x9E3779B97F4A7C15ULL ^ seed) {}
  std::size_t next() {
    if (state_ == 0) return 1;
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return 1 + static_cast<std::size_t>(state_ % 67);
  }

 private:
  std::uint64_t state_;
};

Run run(std::string_view reply, const parse::ParserOptions& options, parse::FinishReason reason,
        std::uint8_t chunk_seed, bool whole) {
  RecordingSink sink;
  parse::Parser parser(compiled_grammar(), sink, options);
  if (whole) {
    parser.feed(reply);
  } else {
    ChunkSizes sizes(chunk_seed);
    for (std::size_t i = 0; i < reply.size();) {
      const std::size_t n = std::min(sizes.next(), reply.size() - i);
      parser.feed(reply.substr(i, n));
      i += n;
    }
  }
  parser.finish(reason);
  FUZZ_CHECK(sink.ended());
  FUZZ_CHECK(!sink.events().empty() && sink.events().back().as_object().at("event") == "end");
  Run r;
  r.summary = boost::json::serialize(sink.summary());
  r.visible = sink.visible();
  r.hidden = sink.hidden();
  r.events = boost::json::serialize(sink.events());
  r.stats = parser.stats();
  return r;
}

void check_stats(const parse::ParserStats& s, std::size_t size) {
  FUZZ_CHECK(s.bytes_in == size);
  FUZZ_CHECK(s.bytes_examined <= 8 * s.bytes_in + 64);
}

// What every run of one reply must give alike, however it was fed and scanned; `other_run` names the run
// that is compared with the whole one, since the checks' own lines cannot.
void check_same_output(const Run& whole, const Run& other, const char* other_run) {
  if (whole.summary == other.summary && whole.visible == other.visible && whole.hidden == other.hidden &&
      whole.events == other.events)
    return;
  std::fprintf(stderr, "the %s run differs from the whole one:\n", other_run);
  FUZZ_CHECK_EQ(whole.summary, other.summary);
  FUZZ_CHECK_EQ(whole.visible, other.visible);
  FUZZ_CHECK_EQ(whole.hidden, other.hidden);
  FUZZ_CHECK_EQ(whole.events, other.events);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || size > 64 * 1024) return 0;
  const std::uint8_t flags = data[0];
  const std::uint8_t chunk_seed = data[1];
  const std::string_view reply(reinterpret_cast<const char*>(data) + 2, size - 2);

  parse::ParserOptions options;
  options.say_mode = (flags & 0x01) != 0;
  options.think_open = (flags & 0x02) != 0;
  const parse::FinishReason reason =
      (flags & 0x04) != 0 ? parse::FinishReason::Length : parse::FinishReason::Stop;
  if ((flags & 0x08) != 0) options.denied_actions = {"react", "search"};
  if ((flags & 0x10) != 0) {
    options.tag_limit = 40;
    options.bracket_limit = 24;
    options.whitespace_limit = 16;
    options.hidden_opener_limit = 32;
  }
  if ((flags & 0x20) != 0) options.max_directives = 2;

  const Run whole = run(reply, options, reason, chunk_seed, true);
  // The chunked run scans with another stage-1 kernel (bits 6-7 of the flags), when this CPU runs it: every
  // kernel must give the same events.
  const sigil::text::stage1::Kernel kernel = sigil::text::stage1::kAllKernels[flags >> 6];
  parse::ParserOptions chunked_options = options;
  if (sigil::text::stage1::kernel_supported(kernel)) chunked_options.stage1_kernel = kernel;
  const Run chunked = run(reply, chunked_options, reason, chunk_seed, false);
  check_stats(whole.stats, reply.size());
  check_stats(chunked.stats, reply.size());

  check_same_output(whole, chunked, "chunked");
  FUZZ_CHECK(whole.stats.directives == chunked.stats.directives);
  FUZZ_CHECK(whole.stats.diagnostics == chunked.stats.diagnostics);
  FUZZ_CHECK(whole.stats.text_bytes == chunked.stats.text_bytes);

  // Stage 2's whole-markup path (parse/whole_markup.cpp) against the byte machine alone: the same events
  // and the same work counters.
  parse::ParserOptions general_options = options;
  general_options.whole_markup = false;
  const Run general = run(reply, general_options, reason, chunk_seed, true);
  check_same_output(whole, general, "general (byte machine only)");
  FUZZ_CHECK(whole.stats.bytes_examined == general.stats.bytes_examined);
  FUZZ_CHECK(whole.stats.bytes_replayed == general.stats.bytes_replayed);
  FUZZ_CHECK(whole.stats.max_held == general.stats.max_held);
  return 0;
}
