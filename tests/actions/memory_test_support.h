// Shared by the memory and archive handler tests: handlers called directly with a controllable clock and
// stop token, and whole replies run through Parser + Registry + SqliteStore + Executor.
#pragma once

#include <gtest/gtest.h>

#include <any>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/exec/handler.h"
#include "sigil/exec/outbox.h"
#include "sigil/parse/parser.h"
#include "support/handler_context.h"
#include "support/run_turn.h"

namespace sigil::actions::testing {

// What the handlers answer, named unqualified by the tests that bring this namespace in.
using exec::HandlerResult;
using exec::ResultStatus;

// 2023-11-14 22:13:20 UTC.
inline const store::TimePoint kT0{std::chrono::seconds(1'700'000'000)};
inline const exec::TurnIds kAlice{"alice", "conv-1", "turn-1"};

// Handlers over one in-memory store; run() calls a handler as the executor would.
struct Harness {
  std::unique_ptr<store::Store> store = sigil::test::memory_store();
  exec::HandlerTable handlers;
  exec::TurnIds ids = kAlice;
  store::TimePoint now = kT0;
  std::stop_source stop;

  exec::HandlerResult run(std::string_view action, std::string_view args_json) {
    exec::Directive d;
    d.action = std::string(action);
    d.args = boost::json::parse(args_json).as_object();
    const std::function<store::TimePoint()> clock = [this] { return now; };
    const std::any services;
    exec::ActionContext ctx(ids, *store, stop.get_token(), clock, services);
    auto handler = handlers.find(action);
    if (!handler) throw std::runtime_error("no handler for " + std::string(action));
    return handler->run(d, ctx);
  }

  // One whole reply through the real parser, the built-in registry and the executor, with these handlers
  // and store, as `who` at time `at`.
  test::TurnRun run_reply(std::string_view reply, exec::TurnIds who = kAlice, store::TimePoint at = kT0) {
    exec::ExecOptions options;
    options.now = [at] { return at; };
    return test::run_turn(reply, handlers, *store, std::move(who), std::move(options));
  }

  // The same with other ids (another user or conversation).
  exec::HandlerResult run_as(const exec::TurnIds& who, std::string_view action, std::string_view args_json) {
    const exec::TurnIds saved = ids;
    ids = who;
    exec::HandlerResult r = run(action, args_json);
    ids = saved;
    return r;
  }
};

inline bool is_ok(const exec::HandlerResult& r) { return r.status == exec::HandlerResult::Status::Ok; }

// A message for the model is one line.
inline bool one_line(const std::string& s) { return s.find_first_of("\r\n") == std::string::npos; }

// What a handler answers when the store fails under it: an error on one line, "<action>: could not …".
inline void expect_store_failure(const exec::HandlerResult& r, const std::string& action) {
  EXPECT_FALSE(is_ok(r)) << action;
  EXPECT_EQ(r.message.rfind(action + ": could not ", 0), 0u) << r.message;
  EXPECT_TRUE(one_line(r.message));
}

}  // namespace sigil::actions::testing
