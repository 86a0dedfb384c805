// Shared by the store tests: a temporary directory, fixed times, scopes. The tests live in this namespace,
// so they name these without a prelude of using-declarations.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>  // mkdtemp

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/temp_dir.h"
#include "sigil/store/store.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::store::testing {

using TempDir = sigil::test::TempDir;

// 2023-11-14 22:13:20 UTC: tests never read the clock.
inline const TimePoint kT0{std::chrono::seconds(1'700'000'000)};

// Two users of one conversation (per-user memory): the scopes most store tests write under.
inline const Scope kAlice{"alice", "chat-1"};
inline const Scope kBob{"bob", "chat-1"};

inline std::unique_ptr<Store> open_or_fail(const std::string& path, const sqlite::OpenOptions& options = {}) {
  auto opened = sqlite::SqliteStore::open(path, options);
  EXPECT_TRUE(opened.ok()) << opened.error();
  return opened.ok() ? std::move(opened).value() : nullptr;
}

// One message of a history a test writes.
struct HistoryLine {
  std::string role, text, turn_id;
};

// Appends `lines` to `scope` in order, each at `at` (by default now: for a test the time does not matter to):
// success, or the first failed append with its error.
inline ::testing::AssertionResult append_history(Store& store, const Scope& scope,
                                                 const std::vector<HistoryLine>& lines,
                                                 TimePoint at = Clock::now()) {
  for (const HistoryLine& l : lines)
    if (auto id = store.append_message(scope, l.role, l.text, l.turn_id, at); !id.ok())
      return ::testing::AssertionFailure() << "appending \"" << l.text << "\": " << id.error();
  return ::testing::AssertionSuccess();
}

// What `pick` makes of each element of a listing the test reads (ids, texts): a listing that failed fails the
// test with its error and gives none.
template <class T, class Pick>
std::vector<std::string> picked(const Result<std::vector<T>>& listed, Pick pick) {
  EXPECT_TRUE(listed.ok()) << listed.error();
  std::vector<std::string> out;
  if (listed.ok())
    for (const T& x : *listed) out.push_back(std::string(pick(x)));
  return out;
}

// Runs SQL (one statement or several) on a database file with the raw C API, bypassing the store; returns
// SQLite's error message, or "" when it all ran.
inline std::string raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string error;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    error = db ? sqlite3_errmsg(db) : "cannot open " + path;
  } else {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK)
      error = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
  }
  sqlite3_close(db);
  return error;
}

// Runs one SQL statement on a database file with the raw C API, bypassing the store; its
// first row's first column as text ("" when none), or "error: " and SQLite's message.
inline std::string raw_query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr)
        out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    } else {
      out = std::string("error: ") + sqlite3_errmsg(db);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return out;
}

// Makes the database file `path` as a gateway of schema `version` left it: a fresh store is opened and
// closed, then what later versions added is taken away (`drop`: one of the kDropSchemaVersion texts below)
// and the version set back. SQLite's error message, or "" when it all ran and the file reads as `version`.
inline std::string make_old_schema(const std::string& path, const std::string& drop, int version) {
  if (open_or_fail(path) == nullptr) return "cannot make a store at " + path;
  const std::string error =
      raw_exec(path, drop + "UPDATE schema_version SET version = " + std::to_string(version) + ";");
  if (!error.empty()) return error;
  const std::string now = raw_query(path, "SELECT version FROM schema_version");
  return now == std::to_string(version) ? "" : "the schema version reads " + now;
}

// make_old_schema, then `rows` (an SQL VALUES list of (user_id, conversation_id, role, text, turn_id, at)) in
// the history, written as that gateway wrote them (its triggers ran). SQLite's error message, or "".
inline std::string make_old_history(const std::string& path, const std::string& drop, int version,
                                    const std::string& rows) {
  if (std::string error = make_old_schema(path, drop, version); !error.empty()) return error;
  return raw_exec(path,
                  "INSERT INTO messages(user_id, conversation_id, role, text, turn_id, at) VALUES " + rows);
}

// Takes away what schema versions 3 (the message counts behind the history cap), 4 (deliveries kept
// with the history), 5 (a message's task id), 6 (the channels' inbound dedupe), 7 (facts' importance), 8
// (the archive's vectors), 9 (messages' platform ids) and 11 (the history's index in batches: back to the
// triggers that indexed every append) added, for a test that makes a database of an earlier version.
inline const std::string kDropSchemaVersion11 =
    "\nDROP TRIGGER messages_fts_delete; DROP TRIGGER messages_fts_update; DROP TABLE messages_fts_indexed;" +
    std::string(sqlite::SqliteStore::per_row_history_index());
inline const std::string kDropSchemaVersion9 =
    kDropSchemaVersion11 + "DROP INDEX messages_platform; ALTER TABLE messages DROP COLUMN platform_id; ";
inline const std::string kDropSchemaVersion8 = kDropSchemaVersion9 + "DROP TABLE archive_vectors; ";
inline const std::string kDropSchemaVersion7 =
    kDropSchemaVersion8 +
    "DROP INDEX facts_rank; DROP INDEX memory_items_recent; DROP INDEX messages_user; "
    "ALTER TABLE facts DROP COLUMN updated_at; ALTER TABLE facts DROP COLUMN importance; ";
inline const std::string kDropSchemaVersion6 = kDropSchemaVersion7 + "DROP TABLE channel_inbound; ";
inline const std::string kDropSchemaVersion5 =
    kDropSchemaVersion6 + "ALTER TABLE messages DROP COLUMN task_id; ";
inline const std::string kDropSchemaVersion3 =
    kDropSchemaVersion5 +
    "DROP TRIGGER messages_deliveries_delete; DROP TABLE deliveries; "
    "DROP TRIGGER messages_count_insert; DROP TRIGGER messages_count_delete; DROP TABLE message_counts;";

}  // namespace sigil::store::testing
