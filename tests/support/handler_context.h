// What a handler runs with in a unit test: an empty store in memory, and the parts of an exec::ActionContext
// (alice's turn-1 in conv-1, a clock standing at the epoch, no services).
#pragma once

#include <any>
#include <functional>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <utility>

#include "sigil/exec/handler.h"
#include "sigil/store/store.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::test {

// An empty SQLite store in memory; throws (failing the test) when SQLite cannot open one.
inline std::unique_ptr<store::Store> memory_store() {
  auto opened = store::sqlite::SqliteStore::open(":memory:");
  if (!opened.ok()) throw std::runtime_error(opened.error());
  return std::move(opened).value();
}

// The parts outlive every context() made of them (an ActionContext holds references).
struct HandlerContext {
  std::unique_ptr<store::Store> store = memory_store();
  exec::TurnIds ids{"alice", "conv-1", "turn-1"};
  std::function<store::TimePoint()> now = [] { return store::TimePoint{}; };
  std::any services;

  exec::ActionContext context(std::stop_token stop = {}) const {
    return exec::ActionContext(ids, *store, std::move(stop), now, services);
  }
};

}  // namespace sigil::test
