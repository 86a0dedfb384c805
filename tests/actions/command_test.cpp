// command (spec 13): operator-registered programs run by name, without a shell, with time-outs and
// cancellation; one reply through the real parser and executor.
#include "sigil/actions/command.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "support/handler_context.h"
#include "support/run_turn.h"

namespace sigil::actions {
namespace {

using namespace std::chrono_literals;

CommandSpec spec(std::string name, std::string program, std::vector<std::string> args = {}) {
  CommandSpec s;
  s.name = std::move(name);
  s.program = std::move(program);
  s.args = std::move(args);
  return s;
}

// Calls the registered handler directly, as the executor would.
class CommandTest : public ::testing::Test {
 protected:
  exec::HandlerResult run(const CommandConfig& config, std::string_view name, std::stop_token stop = {}) {
    exec::HandlerTable table;
    add_command_handlers(table, config);
    exec::Directive d;
    d.action = "command";
    d.args["name"] = name;
    exec::ActionContext ctx = parts_.context(std::move(stop));
    return table.find("command")->run(d, ctx);
  }

  test::HandlerContext parts_;
};

TEST_F(CommandTest, NoneConfigured) {
  auto r = run({}, "backup");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message, "command: no commands are configured");
}

TEST_F(CommandTest, ExitZeroIsDoneWithOutput) {
  CommandConfig c{{spec("greet", "/bin/echo", {"hello", "world"})}};
  auto r = run(c, "greet");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Ok);
  EXPECT_EQ(r.message, "command greet: done");
  EXPECT_EQ(boost::json::serialize(r.result), R"({"exit":0,"output":"hello world\n"})");
}

TEST_F(CommandTest, NamesMatchCaseInsensitivelyAndExactly) {
  CommandConfig c{{spec("Status", "/bin/true")}};
  EXPECT_EQ(run(c, "status").message, "command Status: done");
  EXPECT_EQ(run(c, "  STATUS ").message, "command Status: done");
  EXPECT_EQ(run(c, "stat").message, "command: unknown command \"stat\"; known: Status");
  EXPECT_EQ(run(c, "status2").status, exec::HandlerResult::Status::Error);
}

TEST_F(CommandTest, UnknownListsAtMostTenNames) {
  CommandConfig c;
  for (int i = 0; i < 12; ++i) c.commands.push_back(spec("c" + std::to_string(i), "/bin/true"));
  EXPECT_EQ(
      run(c, "rm -rf /").message,
      "command: unknown command \"rm -rf /\"; known: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, … (2 more)");
}

TEST_F(CommandTest, NonZeroExitIsAnErrorWithTheFirstStderrLine) {
  CommandConfig c{
      {spec("fail", "/bin/false"),
       spec("oops", "/bin/sh", {"-c", "echo out; printf '\\n  disk full  \\nsecond\\n' >&2; exit 3"})}};
  EXPECT_EQ(run(c, "fail").message, "command fail: exited with status 1");
  auto r = run(c, "oops");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message, "command oops: exited with status 3: disk full");
}

TEST_F(CommandTest, KilledBySignal) {
  CommandConfig c{{spec("die", "/bin/sh", {"-c", "kill -TERM $$"})}};
  EXPECT_EQ(run(c, "die").message, "command die: killed by signal 15");
}

TEST_F(CommandTest, TimeOutKillsIt) {
  CommandSpec s = spec("nap", "/bin/sleep", {"5"});
  s.timeout = 100ms;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run({{s}}, "nap");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message, "command nap: timed out after 100 ms; killed");
}

TEST_F(CommandTest, StopRequestKillsIt) {
  CommandConfig c{{spec("nap", "/bin/sleep", {"5"})}};
  std::stop_source source;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(100ms);
    source.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run(c, "nap", source.get_token());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(r.message, "command nap: stopped; killed");
}

TEST_F(CommandTest, AlreadyStoppedDoesNotRun) {
  CommandConfig c{{spec("greet", "/bin/echo", {"x"})}};
  std::stop_source source;
  source.request_stop();
  EXPECT_EQ(run(c, "greet", source.get_token()).message, "command greet: stopped before it ran");
}

TEST_F(CommandTest, MissingProgram) {
  CommandConfig c{{spec("ghost", "/nonexistent/sigil-no-such-program")}};
  auto r = run(c, "ghost");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message, "command ghost: cannot run it: '/nonexistent/sigil-no-such-program' not found");
}

TEST_F(CommandTest, OutputIsCutAtACharacterAndMadeValid) {
  // 10 bytes of "é" (2 bytes each) cut at 7 bytes: 3 whole characters; then an invalid byte replaced.
  CommandSpec s = spec("big", "/bin/sh", {"-c", "printf 'ééééé'"});
  s.max_output = 7;
  auto r = run({{s}}, "big");
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok);
  EXPECT_EQ(r.result.at("output").as_string(), "ééé");
  EXPECT_EQ(r.result.at("truncated").as_bool(), true);

  CommandConfig bad{{spec("bad", "/bin/sh", {"-c", "printf 'a\\377b'"})}};
  r = run(bad, "bad");
  EXPECT_EQ(r.result.at("output").as_string(),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(r.result.as_object().if_contains("truncated"), nullptr);
}

TEST_F(CommandTest, RunawayOutputIsKilled) {
  CommandSpec s = spec("yes", "/usr/bin/yes");
  s.max_output = 16;
  auto r = run({{s}}, "yes");
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message.rfind("command yes: failed: '/usr/bin/yes' wrote more than 1024 bytes; killed", 0), 0u)
      << r.message;
}

TEST(CommandEndToEnd, BracketRunsTheNamedCommand) {
  auto store = test::memory_store();
  exec::HandlerTable handlers;
  add_command_handlers(handlers, CommandConfig{{spec("greet", "/bin/echo", {"hi"})}});
  const test::TurnRun run =
      test::run_turn("Running it: [EXECUTE:Greet] and [COMMAND:nope]", handlers, *store);
  const exec::TurnReport& report = run.report;
  ASSERT_EQ(report.results.size(), 2u);
  EXPECT_EQ(report.results[0].status, exec::ResultStatus::Ok);
  EXPECT_EQ(report.results[0].message, "command greet: done");
  EXPECT_EQ(boost::json::serialize(report.results[0].result), R"({"exit":0,"output":"hi\n"})");
  EXPECT_EQ(report.results[1].status, exec::ResultStatus::Error);
  EXPECT_EQ(run.model_message, "[2] command: error: unknown command \"nope\"; known: greet\n");
}

TEST(CommandEndToEnd, ExecutorTimeOutStopsTheProgram) {
  auto store = test::memory_store();
  exec::HandlerTable handlers;
  add_command_handlers(handlers, CommandConfig{{spec("nap", "/bin/sleep", {"5"})}});
  exec::ExecOptions options;
  options.timeouts["command"] = 100ms;
  const auto t0 = std::chrono::steady_clock::now();
  // The executor is gone when run_turn returns, its worker joined: the handler has returned, so the program
  // was killed, not waited for.
  const test::TurnRun run =
      test::run_turn("[COMMAND:nap]", handlers, *store, {"alice", "conv-1", "turn-1"}, std::move(options));
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].message, "timed out after 100 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
}

}  // namespace
}  // namespace sigil::actions
