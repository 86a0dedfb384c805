#include "bench_executor.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cpu_clock.h"
#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/exec/handler_pool.h"
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

// Wall clock (handlers may run on other threads) and, beside it, this thread's CPU time.
struct PerReply {
  double wall_s = 0;
  double cpu_s = 0;
};

template <class F>
PerReply per_reply(F&& one_reply, std::size_t replies, int runs) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    for (std::size_t i = 0; i < replies; ++i) one_reply(static_cast<std::size_t>(r) * replies + i);
    cpu.push_back((cpu_seconds() - c0) / static_cast<double>(replies));
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                   static_cast<double>(replies));
  }
  return {median(wall), median(cpu)};
}

}  // namespace

boost::json::object ExecutorFigures::json() const {
  return {{"directives_per_reply", directives},
          {"parse_us_per_reply", parse_us},
          {"exec_memory_us_per_reply", exec_memory_us},
          {"exec_file_us_per_reply", exec_file_us},
          {"overhead_ns_per_directive_memory_store", overhead_memory_ns()},
          {"overhead_ns_per_directive_file_store", overhead_file_ns()},
          {"exec_pool_us_per_reply", exec_pool_us},
          {"parse_cpu_us_per_reply", parse_cpu_us},
          {"exec_memory_cpu_us_per_reply", exec_memory_cpu_us},
          {"overhead_cpu_ns_per_directive_memory_store", overhead_memory_cpu_ns()},
          {"overhead_ns_per_directive_pool_handler", overhead_pool_ns()},
          {"directives_per_s_memory_store", 1e6 * static_cast<double>(directives) / exec_memory_us}};
}

ExecutorFigures measure_executor(std::size_t replies, int runs) {
  static const catalog::Registry registry = catalog::Registry::builtin();
  static const parse::CompiledGrammar grammar(registry);
  const std::string reply = reply_with_directives();
  parse::ParserOptions options;
  options.max_directives = kDirectives;

  // The handler is quick (as the built-in remember is): it runs where its key was begun.
  exec::HandlerTable handlers;
  handlers.add("remember",
               [](const exec::Directive&, exec::ActionContext&) { return exec::HandlerResult::ok("ok"); });
  handlers.set_quick("remember");
  exec::HandlerTable pooled;
  pooled.add("remember",
             [](const exec::Directive&, exec::ActionContext&) { return exec::HandlerResult::ok("ok"); });
  const auto pool = std::make_shared<exec::HandlerPool>();

  ExecutorFigures f;
  f.directives = kDirectives;
  const PerReply parse = per_reply(
      [&](std::size_t) {
        NullSink sink;
        parse::Parser parser(grammar, sink, options);
        parser.feed(reply);
        parser.finish();
      },
      replies, runs);
  f.parse_us = 1e6 * parse.wall_s;
  f.parse_cpu_us = 1e6 * parse.cpu_s;

  std::size_t turn = 0;  // every reply is a new turn: fresh keys
  auto run_on = [&](store::Store& store, const exec::HandlerTable& table, std::size_t n_replies) {
    return per_reply(
        [&](std::size_t) {
          exec::RecordingOutbox outbox;
          exec::ExecOptions eo;
          eo.pool = pool;
          eo.bursts = true;
          exec::Executor ex(registry, table, store, outbox,
                            {"bench", "conv", "turn-" + std::to_string(turn++)}, eo);
          parse::ParserOptions po = options;
          po.inline_resolver = ex.inline_resolver();
          parse::Parser parser(grammar, ex.sink(), po);
          parser.feed(reply);
          ex.end_burst();
          parser.finish();
          (void)ex.finish();
        },
        n_replies, runs);
  };
  {
    auto store = store::sqlite::open(":memory:");
    if (store) {
      const PerReply quick = run_on(**store, handlers, replies);
      f.exec_memory_us = 1e6 * quick.wall_s;
      f.exec_memory_cpu_us = 1e6 * quick.cpu_s;  // everything ran on this thread
      f.exec_pool_us = 1e6 * run_on(**store, pooled, replies).wall_s;
    }
  }
  {
    std::string dir = (std::filesystem::temp_directory_path() / "sigil-bench-XXXXXX").string();
    if (::mkdtemp(dir.data()) != nullptr) {
      {
        auto store = store::sqlite::open(dir + "/bench.db");
        // Fewer replies: each costs a few fsyncs.
        if (store)
          f.exec_file_us = 1e6 * run_on(**store, handlers, std::max<std::size_t>(2, replies / 25)).wall_s;
      }
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }
  return f;
}

}  // namespace sigil::app
