// Shared by the store tests: a temporary directory, fixed times, scopes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "../support/temp_dir.h"
#include "sigil/store/store.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::store::testing {

using TempDir = sigil::test::TempDir;

// 2023-11-14 22:13:20 UTC: tests never read the clock.
inline const TimePoint kT0{std::chrono::seconds(1'700'000'000)};

inline std::unique_ptr<Store> open_or_fail(const std::string& path, const sqlite::OpenOptions& options = {}) {
  auto opened = sqlite::SqliteStore::open(path, options);
  EXPECT_TRUE(opened.ok()) << opened.error();
  return opened.ok() ? std::move(opened).value() : nullptr;
}

}  // namespace sigil::store::testing
