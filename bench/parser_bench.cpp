// Google Benchmark cases for the streaming parser (README "Benchmarks"); `sigil bench` runs the same cases
// without this library. Each case has three twins over the same bytes: BM_Memchr (a byte absent from them),
// BM_Index (the stage-1 limit: the AVX2 structural index) and BM_Utf8 (a SIMD UTF-8 validation); the console
// output ends with each case's ratios to them.
//
//   (a) BM_Parse/prose            1 MiB of markup-free prose
//   (b) BM_Parse/reacts           1 MiB holding 10,000 react directives in actions blocks
//   (c) BM_Parse/stream_64k, _4m  a 64 KiB and a 4 MiB reply fed in 16-byte chunks (counter ns_per_chunk)
//   (d) BM_Parse/openers          256 KiB of 4,096 unclosed openers (and openers_64k: 1,024 in 64 KiB)
//   (e) BM_Parse/typical          a typical 2 KiB reply with two directives (a fresh Parser per reply)
//       BM_Parse/typical_reset    the same, one Parser reset() per reply (as a conversation parses)
//
// One CompiledGrammar for everything, a fresh Parser per reply (but typical_reset), a sink that only counts.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "app/bench_inputs.h"

namespace {

namespace bench = sigil::app::bench;

struct Case {
  std::string name;
  std::string input;
  sigil::parse::ParserOptions options;
  std::size_t chunk = 0;  // 0: fed whole
  bool reuse = false;     // one parser for every pass, reset() between them (a conversation)
};

std::vector<Case>& cases() {
  static std::vector<Case> all = [] {
    const sigil::parse::ParserOptions defaults;
    const sigil::parse::ParserOptions many = bench::options_for_many_directives();
    std::vector<Case> v;
    v.push_back({"prose", bench::prose(bench::kProseBytes), defaults, 0});
    v.push_back({"reacts", bench::reacts_in_actions(), many, 0});
    v.push_back({"stream_64k", bench::long_reply(bench::kStreamSmallBytes), many, bench::kStreamChunk});
    v.push_back({"stream_4m", bench::long_reply(bench::kStreamLargeBytes), many, bench::kStreamChunk});
    v.push_back({"openers", bench::unclosed_openers(), defaults, 0});
    v.push_back(
        {"openers_64k", bench::unclosed_openers(bench::kOpenerBytes / 4, bench::kOpeners / 4), defaults, 0});
    v.push_back({"typical", bench::typical_reply(), defaults, 0});
    v.push_back({"typical_reset", bench::typical_reply(), defaults, 0, true});
    return v;
  }();
  return all;
}

void BM_Parse(benchmark::State& state, const Case* c) {
  const sigil::parse::CompiledGrammar& grammar = bench::grammar();
  std::uint64_t directives = 0;
  if (c->reuse) {
    bench::ReusedParser reused(grammar, c->options);
    for (auto _ : state) {
      reused.parse(c->input, c->chunk);
      benchmark::DoNotOptimize(reused.sink.text_bytes);
    }
    directives = reused.sink.directives / std::max<std::uint64_t>(1, state.iterations());
  } else {
    for (auto _ : state) {
      bench::CountingSink sink;
      bench::parse_reply(grammar, c->options, c->input, c->chunk, sink);
      benchmark::DoNotOptimize(sink.text_bytes);
      directives = sink.directives;
    }
  }
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(c->input.size()));
  state.counters["directives"] = static_cast<double>(directives);
  if (c->chunk != 0) {
    const double chunks = static_cast<double>((c->input.size() + c->chunk - 1) / c->chunk);
    // Seconds per chunk (shown with an SI prefix: 40n = 40 ns).
    state.counters["ns_per_chunk"] = benchmark::Counter(
        chunks, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  }
}

void BM_Memchr(benchmark::State& state, const Case* c) {
  const char absent = bench::absent_byte(c->input);
  for (auto _ : state) {
    const void* p = bench::memchr_pass(c->input, absent);
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(c->input.size()));
}

void BM_Index(benchmark::State& state, const Case* c) {
  std::vector<sigil::text::stage1::BlockMasks> scratch;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bench::index_pass(c->input, scratch));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(c->input.size()));
}

void BM_Utf8(benchmark::State& state, const Case* c) {
  for (auto _ : state) benchmark::DoNotOptimize(bench::utf8_pass(c->input));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(c->input.size()));
}

// The console reporter, plus a last table: each case's parser throughput as a ratio to memchr's and to the
// stage-1 limit's.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      auto it = run.counters.find("bytes_per_second");
      if (it != run.counters.end()) rates_[run.benchmark_name()] = it->second.value;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-14s %12s %12s %10s %12s %9s %12s   (limit kernel: %s)\n", "case", "parse MB/s",
                "memchr MB/s", "x memchr", "index MB/s", "x index", "utf8 MB/s",
                sigil::text::stage1::kernel_name(bench::limit_kernel()).data());
    for (const Case& c : cases()) {
      auto p = rates_.find("BM_Parse/" + c.name);
      auto m = rates_.find("BM_Memchr/" + c.name);
      auto x = rates_.find("BM_Index/" + c.name);
      auto u = rates_.find("BM_Utf8/" + c.name);
      if (p == rates_.end() || m == rates_.end() || x == rates_.end() || u == rates_.end()) continue;
      std::printf("%-14s %12.1f %12.1f %10.4f %12.1f %9.4f %12.1f\n", c.name.c_str(), p->second / 1e6,
                  m->second / 1e6, p->second / m->second, x->second / 1e6, p->second / x->second,
                  u->second / 1e6);
    }
  }

 private:
  std::map<std::string, double> rates_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::grammar();  // built once, before any timing (and outside a profiler's view of BM_Parse)
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("BM_Parse/" + c.name).c_str(), BM_Parse, &c);
    benchmark::RegisterBenchmark(("BM_Memchr/" + c.name).c_str(), BM_Memchr, &c);
    benchmark::RegisterBenchmark(("BM_Index/" + c.name).c_str(), BM_Index, &c);
    benchmark::RegisterBenchmark(("BM_Utf8/" + c.name).c_str(), BM_Utf8, &c);
  }
  // The ratio table only with the default console output; other formats are printed as they are.
  bool console = true;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0 && std::strcmp(argv[i] + 19, "console") != 0)
      console = false;
  if (console) {
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}
