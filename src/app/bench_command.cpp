#include "bench_command.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "bench_executor.h"
#include "bench_inputs.h"
#include "cpu_clock.h"

namespace sigil::app {

namespace {

// Keeps the compiler from dropping a result or hoisting a pure call out of a timing loop.
inline void keep(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

struct Settings {
  double min_seconds = 0.2;  // each timed run lasts at least this long
  int runs = 5;              // the median of these is reported
};

template <class F>
double time_n(F& f, std::size_t n) {
  const double t0 = cpu_seconds();
  for (std::size_t i = 0; i < n; ++i) f();
  return cpu_seconds() - t0;
}

// The number of calls that take at least `min_seconds`.
template <class F>
std::size_t calibrate(F& f, double min_seconds) {
  std::size_t n = 1;
  for (;;) {
    const double t = time_n(f, n);
    if (t >= min_seconds) return n;
    const double grow = t <= 0 ? 100.0 : std::clamp(1.2 * min_seconds / t, 2.0, 100.0);
    n = static_cast<std::size_t>(std::ceil(static_cast<double>(n) * grow));
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Seconds per pass over one input: the parser (fresh Parser per reply) and memchr, in the same run.
struct Measured {
  double parse = 0;
  double memchr = 0;
  double index = 0;  // the stage-1 limit: the AVX2 structural index of the same bytes
  double utf8 = 0;   // and a SIMD UTF-8 validation of them
  std::size_t parse_iterations = 0;
  std::size_t memchr_iterations = 0;
  bench::CountingSink counts;  // what one parse of the input found
};

// `reuse`: one parser for every pass, reset() between them (a conversation), instead of a fresh one.
Measured measure(std::string_view data, const parse::ParserOptions& options, std::size_t chunk,
                 const Settings& settings, bool reuse = false) {
  Measured m;
  bench::parse_reply(bench::grammar(), options, data, chunk, m.counts);
  bench::ReusedParser reused(bench::grammar(), options);
  auto parse_once = [&] {
    if (reuse) {
      reused.parse(data, chunk);
      keep(&reused.sink);
      return;
    }
    bench::CountingSink sink;
    bench::parse_reply(bench::grammar(), options, data, chunk, sink);
    keep(&sink);
  };
  const char absent = bench::absent_byte(data);
  auto memchr_once = [&] { keep(bench::memchr_pass(data, absent)); };
  std::vector<text::stage1::BlockMasks> scratch;
  auto index_once = [&] { keep(reinterpret_cast<const void*>(bench::index_pass(data, scratch))); };
  auto utf8_once = [&] {
    const bool ok = bench::utf8_pass(data);
    keep(&ok);
  };
  m.parse_iterations = calibrate(parse_once, settings.min_seconds);
  m.memchr_iterations = calibrate(memchr_once, settings.min_seconds);
  const std::size_t index_iterations = calibrate(index_once, settings.min_seconds);
  const std::size_t utf8_iterations = calibrate(utf8_once, settings.min_seconds);
  std::vector<double> parse, mem, index, utf8;
  for (int r = 0; r < settings.runs; ++r) {
    parse.push_back(time_n(parse_once, m.parse_iterations) / static_cast<double>(m.parse_iterations));
    mem.push_back(time_n(memchr_once, m.memchr_iterations) / static_cast<double>(m.memchr_iterations));
    index.push_back(time_n(index_once, index_iterations) / static_cast<double>(index_iterations));
    utf8.push_back(time_n(utf8_once, utf8_iterations) / static_cast<double>(utf8_iterations));
  }
  m.parse = median(parse);
  m.memchr = median(mem);
  m.index = median(index);
  m.utf8 = median(utf8);
  return m;
}

struct Row {
  std::string id;
  std::string label;
  std::size_t bytes = 0;
  Measured m;
  std::string figure;  // the case-specific figure, for the table
  std::string aim;
  bool met = false;
  boost::json::object extra;  // the case-specific figures, for --json

  double mb_per_s() const { return static_cast<double>(bytes) / m.parse / 1e6; }
  double memchr_mb_per_s() const { return static_cast<double>(bytes) / m.memchr / 1e6; }
  double ratio() const { return m.memchr / m.parse; }
  double index_mb_per_s() const { return static_cast<double>(bytes) / m.index / 1e6; }
  double utf8_mb_per_s() const { return static_cast<double>(bytes) / m.utf8 / 1e6; }
  double index_ratio() const { return m.index / m.parse; }
};

Row make_row(std::string id, std::string label, const std::string& input, const parse::ParserOptions& options,
             std::size_t chunk, const Settings& settings, bool reuse = false) {
  Row r;
  r.id = std::move(id);
  r.label = std::move(label);
  r.bytes = input.size();
  r.m = measure(input, options, chunk, settings, reuse);
  return r;
}

std::vector<Row> run_cases(const Settings& settings) {
  const parse::ParserOptions defaults;
  const parse::ParserOptions many = bench::options_for_many_directives();
  std::vector<Row> rows;

  {
    Row r = make_row("a", "(a) prose, no markup", bench::prose(bench::kProseBytes), defaults, 0, settings);
    r.figure = fmt::format("{:.1f} us/MiB", r.m.parse * 1e6 * (1 << 20) / static_cast<double>(r.bytes));
    r.aim = ">= 0.4x index";
    r.met = r.index_ratio() >= 0.4;
    rows.push_back(std::move(r));
  }
  {
    Row r = make_row("b", "(b) 10,000 reacts in actions", bench::reacts_in_actions(), many, 0, settings);
    const double ns = r.m.parse * 1e9 / static_cast<double>(bench::kReacts);
    r.figure = fmt::format("{:.0f} ns/directive", ns);
    r.extra["ns_per_directive"] = ns;
    r.aim = ">= 1 GB/s";
    r.met = r.mb_per_s() >= 1000;
    rows.push_back(std::move(r));
  }
  {
    Row small = make_row("c64k", "(c) 64 KiB reply, 16 B chunks", bench::long_reply(bench::kStreamSmallBytes),
                         many, bench::kStreamChunk, settings);
    Row large = make_row("c4m", "(c) 4 MiB reply, 16 B chunks", bench::long_reply(bench::kStreamLargeBytes),
                         many, bench::kStreamChunk, settings);
    auto ns_per_chunk = [](const Row& r) {
      return r.m.parse * 1e9 / static_cast<double>((r.bytes + bench::kStreamChunk - 1) / bench::kStreamChunk);
    };
    const double per_byte = (large.m.parse / static_cast<double>(large.bytes)) /
                            (small.m.parse / static_cast<double>(small.bytes));
    small.figure = fmt::format("{:.1f} ns/chunk", ns_per_chunk(small));
    small.extra["ns_per_chunk"] = ns_per_chunk(small);
    small.aim = "< 100 ns/chunk";
    small.met = ns_per_chunk(small) < 100;
    large.figure = fmt::format("{:.1f} ns/chunk, {:.2f}x per byte", ns_per_chunk(large), per_byte);
    large.extra["ns_per_chunk"] = ns_per_chunk(large);
    large.extra["per_byte_vs_64k"] = per_byte;
    large.aim = "flat: <= 1.5x per byte";
    large.met = per_byte <= 1.5;
    rows.push_back(std::move(small));
    rows.push_back(std::move(large));
  }
  {
    Row full = make_row("d", "(d) 4,096 unclosed openers", bench::unclosed_openers(), defaults, 0, settings);
    Row quarter = make_row("d64k", "(d) 1,024 unclosed openers",
                           bench::unclosed_openers(bench::kOpenerBytes / 4, bench::kOpeners / 4), defaults, 0,
                           settings);
    const double per_byte = (full.m.parse / static_cast<double>(full.bytes)) /
                            (quarter.m.parse / static_cast<double>(quarter.bytes));
    full.figure = fmt::format("{:.3f} ms, {:.2f}x per byte", full.m.parse * 1e3, per_byte);
    full.extra["ms"] = full.m.parse * 1e3;
    full.extra["per_byte_vs_64k"] = per_byte;
    full.aim = "linear: <= 1.5x per byte";
    full.met = per_byte <= 1.5;
    quarter.figure = fmt::format("{:.3f} ms", quarter.m.parse * 1e3);
    quarter.extra["ms"] = quarter.m.parse * 1e3;
    quarter.aim = "(reference for d)";
    quarter.met = true;
    rows.push_back(std::move(full));
    rows.push_back(std::move(quarter));
  }
  // (e) twice: a fresh parser per reply, then the same reply as a conversation parses it (one parser,
  // reset() per reply); both are held to the same per-reply aim.
  for (const bool reuse : {false, true}) {
    Row r =
        make_row(reuse ? "e_reset" : "e", reuse ? "(e) same, one parser reset()" : "(e) typical 2 KiB reply",
                 bench::typical_reply(), defaults, 0, settings, reuse);
    const double us = r.m.parse * 1e6;
    r.figure = fmt::format("{:.2f} us/reply", us);
    r.extra["us_per_reply"] = us;
    r.aim = "< 1 us/reply";
    r.met = us < 1;
    rows.push_back(std::move(r));
  }
  return rows;
}

void print_table(const std::vector<Row>& rows, const ExecutorFigures& ex, const Settings& settings,
                 std::ostream& out) {
  out << fmt::format(
      "sigil bench: median of {} runs of >= {:.2f} s of CPU time each; MB = 10^6 bytes; over the same bytes "
      "in the same run: memchr, and the stage-1 limit ({} structural index; {} UTF-8 validation); stage 1 "
      "runs {}\n\n",
      settings.runs, settings.min_seconds, text::stage1::kernel_name(bench::limit_kernel()),
      text::stage1::kernel_name(bench::limit_kernel()),
      text::stage1::kernel_name(text::stage1::best_kernel()));
  out << fmt::format("{:<32} {:>9} {:>10} {:>12} {:>9} {:>10} {:>8} {:>10}  {:<36} {:<26} {}\n", "case",
                     "bytes", "MB/s", "memchr MB/s", "x memchr", "index MB/s", "x index", "utf8 MB/s",
                     "figure", "aim", "met");
  for (const Row& r : rows)
    out << fmt::format(
        "{:<32} {:>9} {:>10.1f} {:>12.1f} {:>9.4f} {:>10.1f} {:>8.4f} {:>10.1f}  {:<36} {:<26} {}\n", r.label,
        r.bytes, r.mb_per_s(), r.memchr_mb_per_s(), r.ratio(), r.index_mb_per_s(), r.index_ratio(),
        r.utf8_mb_per_s(), r.figure, r.aim, r.met ? "yes" : "no");
  out << fmt::format(
      "\n(f) executor, {} quiet directives per reply, trivial handlers, wall clock:\n"
      "    parse only {:.1f} us/reply; parse + execute {:.1f} us/reply (store in memory), {:.1f} us/reply "
      "(store in a file, once log fsynced)\n"
      "    overhead per directive: {:.2f} us (memory store; aim < 5 us: {}), {:.1f} us (file store); "
      "{:.0f} directives/s\n"
      "    a handler that is not quick (on the shared pool, memory store): {:.2f} us per directive\n"
      "    CPU time of the dispatching thread (memory store, quick handler): {:.2f} us per directive\n",
      ex.directives, ex.parse_us, ex.exec_memory_us, ex.exec_file_us, ex.overhead_memory_ns() / 1e3,
      ex.overhead_memory_ns() < 5000 ? "met" : "missed", ex.overhead_file_ns() / 1e3,
      1e6 * static_cast<double>(ex.directives) / ex.exec_memory_us, ex.overhead_pool_ns() / 1e3,
      ex.overhead_memory_cpu_ns() / 1e3);
}

void print_json(const std::vector<Row>& rows, const ExecutorFigures& ex, const Settings& settings,
                std::ostream& out) {
  boost::json::object o;
  o["runs"] = settings.runs;
  o["min_seconds"] = settings.min_seconds;
  o["mb"] = 1e6;
  o["clock"] = "thread CPU time";
  o["limit_kernel"] = text::stage1::kernel_name(bench::limit_kernel());
  o["stage1_kernel"] = text::stage1::kernel_name(text::stage1::best_kernel());
  boost::json::array cases;
  for (const Row& r : rows) {
    boost::json::object c;
    c["id"] = r.id;
    c["label"] = r.label;
    c["bytes"] = r.bytes;
    c["seconds_per_pass"] = r.m.parse;
    c["memchr_seconds_per_pass"] = r.m.memchr;
    c["mb_per_s"] = r.mb_per_s();
    c["memchr_mb_per_s"] = r.memchr_mb_per_s();
    c["ratio_to_memchr"] = r.ratio();
    c["index_seconds_per_pass"] = r.m.index;
    c["index_mb_per_s"] = r.index_mb_per_s();
    c["ratio_to_index"] = r.index_ratio();
    c["utf8_seconds_per_pass"] = r.m.utf8;
    c["utf8_mb_per_s"] = r.utf8_mb_per_s();
    c["iterations"] = r.m.parse_iterations;
    c["directives"] = r.m.counts.directives;
    c["valid_directives"] = r.m.counts.valid_directives;
    c["text_bytes"] = r.m.counts.text_bytes;
    for (const auto& kv : r.extra) c[kv.key()] = kv.value();
    c["aim"] = r.aim;
    c["aim_met"] = r.met;
    cases.push_back(std::move(c));
  }
  o["cases"] = std::move(cases);
  o["executor"] = ex.json();
  out << boost::json::serialize(o) << '\n';
}

}  // namespace

int run_bench(const BenchCommandOptions& options, std::ostream& out) {
  Settings settings;
  if (options.quick) {
    settings.min_seconds = 0.02;
    settings.runs = 3;
  }
  const std::vector<Row> rows = options.executor_only ? std::vector<Row>{} : run_cases(settings);
  const ExecutorFigures ex = measure_executor(options.quick ? 20 : 200, settings.runs);
  if (options.json)
    print_json(rows, ex, settings, out);
  else
    print_table(rows, ex, settings, out);
  return 0;
}

}  // namespace sigil::app
