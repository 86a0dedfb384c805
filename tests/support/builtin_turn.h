// One reply through the built-in handlers a configuration makes, on a store in memory: for the action tests
// that show what a configuration does with a directive (the search provider, page fetching turned off).
#pragma once

#include <string_view>

#include "sigil/actions/builtin_handlers.h"
#include "store/sqlite/sqlite_store.h"
#include "support/run_turn.h"

namespace sigil::test {

// A configuration the handlers refuse, or a store that does not open, is a test failure (and an empty run).
inline TurnRun run_builtin_turn(std::string_view reply, const actions::BuiltinConfig& config) {
  auto table = actions::builtin_handlers(config);
  EXPECT_TRUE(table) << (table ? "" : table.error().message);
  if (!table) return {};
  auto store = store::sqlite::SqliteStore::open(":memory:");
  EXPECT_TRUE(store);
  if (!store) return {};
  return run_turn(reply, *table, **store);
}

}  // namespace sigil::test
