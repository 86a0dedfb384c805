// Every built-in action of spec 13 has a handler, and unconfigured ones say what is missing.
#include "sigil/actions/builtin_handlers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "../support/run_turn.h"
#include "sigil/catalog/registry.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::actions {
namespace {

TEST(BuiltinHandlers, EveryCatalogueActionHasOne) {
  auto table = builtin_handlers(BuiltinConfig{});
  ASSERT_TRUE(table.ok()) << table.error().message;
  const catalog::Registry registry = catalog::Registry::builtin();
  for (const catalog::ActionSpec& a : registry.actions()) {
    if (a.name == "say") continue;  // delivery, not an action that runs (spec 6)
    EXPECT_NE(table->find(a.name), nullptr) << a.name;
  }
}

// Quick handlers run on the dispatching thread without a time-out, so only actions that never wait may be
// marked: the store-only memory actions, react and calculate; never one that touches the network,
// a process, a file or a timer.
TEST(BuiltinHandlers, OnlyActionsThatNeverWaitAreQuick) {
  auto table = builtin_handlers(BuiltinConfig{});
  ASSERT_TRUE(table.ok()) << table.error().message;
  const catalog::Registry registry = catalog::Registry::builtin();
  std::set<std::string> quick;
  for (const catalog::ActionSpec& a : registry.actions())
    if (table->quick(a.name)) quick.insert(a.name);
  const std::set<std::string> expected{"calculate", "cleanupMemory", "correct",  "deleteItem",
                                       "forget",    "react",         "remember", "setMemory"};
  EXPECT_EQ(quick, expected);
}

TEST(BuiltinHandlers, UnconfiguredProvidersAreClearErrors) {
  auto table = builtin_handlers(BuiltinConfig{});
  ASSERT_TRUE(table.ok());
  auto store = store::sqlite::SqliteStore::open(":memory:");
  ASSERT_TRUE(store.ok());
  auto run = test::run_turn("[SEARCH:weather in Paris] <file>x.pdf</file>", *table, **store);
  ASSERT_GE(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].action, "search");
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_EQ(run.report.results[0].message, "search: no web search provider is configured");
  EXPECT_NE(run.model_message.find("[1] search: error: no web search provider is configured"),
            std::string::npos)
      << run.model_message;
}

TEST(BuiltinHandlers, AFolderThatCannotBeOpenedIsAConfigurationError) {
  BuiltinConfig config;
  config.file_roots = {"/nonexistent/sigil/outbound"};
  auto table = builtin_handlers(config);
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.error().message.find("file folders"), std::string::npos) << table.error().message;
}

}  // namespace
}  // namespace sigil::actions
