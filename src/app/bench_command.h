// `sigil bench`: the parser benchmark (README "Benchmarks") without Google Benchmark.
#pragma once

#include <iosfwd>

namespace sigil::app {

struct BenchCommandOptions {
  bool json = false;           // one JSON object instead of the table
  bool quick = false;          // fewer, shorter runs (for tests); the figures are rougher
  bool executor_only = false;  // only case (f): for profiling the executor (callgrind, perf)
};

// Runs the five cases, each against memchr over the same bytes in the same run, and prints the results to
// `out`. Returns the exit status.
int run_bench(const BenchCommandOptions& options, std::ostream& out);

}  // namespace sigil::app
