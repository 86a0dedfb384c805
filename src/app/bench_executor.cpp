#include "bench_executor.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/parse/parser.h"
#include "sigil/store/sqlite.h"

namespace sigil::app {
namespace {

constexpr std::size_t kDirectives = 100;

// Quiet directives (remember: never holds text) between short sentences, as a busy reply has them.
std::string reply_with_directives() {
  std::string r;
  for (std::size_t i = 0; i < kDirectives; ++i)
    r += "Noted. [REMEMBER:fact number " + std::to_string(i) + "] ";
  return r;
}

class NullSink final : public parse::EventSink {
 public:
  void on_text(std::string_view, bool) override {}
  void on_directive(const parse::DirectiveEvent&) override {}
  void on_diagnostic(const parse::Diagnostic&) override {}
  void on_silence(std::uint64_t) override {}
  void on_fallback() override {}
  void on_end(bool) override {}
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double seconds_per_reply(F&& one_reply, std::size_t replies, int runs) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < replies; ++i) one_reply(static_cast<std::size_t>(r) * replies + i);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                static_cast<double>(replies));
  }
  return median(t);
}

}  // namespace

boost::json::object ExecutorFigures::json() const {
  return {{"directives_per_reply", directives},
          {"parse_us_per_reply", parse_us},
          {"exec_memory_us_per_reply", exec_memory_us},
          {"exec_file_us_per_reply", exec_file_us},
          {"overhead_ns_per_directive_memory_store", overhead_memory_ns()},
          {"overhead_ns_per_directive_file_store", overhead_file_ns()},
          {"directives_per_s_memory_store", 1e6 * static_cast<double>(directives) / exec_memory_us}};
}

ExecutorFigures measure_executor(std::size_t replies, int runs) {
  static const catalog::Registry registry = catalog::Registry::builtin();
  static const parse::CompiledGrammar grammar(registry);
  const std::string reply = reply_with_directives();
  parse::ParserOptions options;
  options.max_directives = kDirectives;

  exec::HandlerTable handlers;
  handlers.add("remember",
               [](const exec::Directive&, exec::ActionContext&) { return exec::HandlerResult::ok("ok"); });

  ExecutorFigures f;
  f.directives = kDirectives;
  f.parse_us = 1e6 * seconds_per_reply(
                         [&](std::size_t) {
                           NullSink sink;
                           parse::Parser parser(grammar, sink, options);
                           parser.feed(reply);
                           parser.finish();
                         },
                         replies, runs);

  auto run_on = [&](store::Store& store, std::size_t n_replies) {
    return 1e6 * seconds_per_reply(
                     [&](std::size_t n) {
                       exec::RecordingOutbox outbox;
                       exec::Executor ex(registry, handlers, store, outbox,
                                         {"bench", "conv", "turn-" + std::to_string(n)});
                       parse::ParserOptions po = options;
                       po.inline_resolver = ex.inline_resolver();
                       parse::Parser parser(grammar, ex.sink(), po);
                       parser.feed(reply);
                       parser.finish();
                       (void)ex.finish();
                     },
                     n_replies, runs);
  };
  {
    auto store = store::sqlite::open(":memory:");
    if (store) f.exec_memory_us = run_on(**store, replies);
  }
  {
    std::string dir = (std::filesystem::temp_directory_path() / "sigil-bench-XXXXXX").string();
    if (::mkdtemp(dir.data()) != nullptr) {
      {
        auto store = store::sqlite::open(dir + "/bench.db");
        // Fewer replies: the once log is fsynced for every key.
        if (store) f.exec_file_us = run_on(**store, std::max<std::size_t>(2, replies / 25));
      }
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }
  return f;
}

}  // namespace sigil::app
