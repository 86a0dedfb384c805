// SqliteStore: refusing, at open, a database file that cannot be used (zero bytes, or damaged), before
// anything is written to it.
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {

// What to do about a database that cannot be used, for every refusal below.
constexpr const char* kDamagedAdvice =
    ": restore it from a backup, or move it away to start with a new, empty database";

// SQLite treats an empty file as a new database: a database truncated to zero bytes would start again empty,
// without a word, and its history, memory and tasks would be gone. A new database is made only where there is
// no file. (A database in WAL mode may keep its pages in the -wal file only: that is not empty.)
Status SqliteStore::refuse_empty_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) != 0 || ec) return {};
  const std::string wal = path + "-wal";
  if (std::filesystem::exists(wal, ec) && std::filesystem::file_size(wal, ec) > 0 && !ec) return {};
  return Error{"sqlite store: " + path + " exists but is empty (0 bytes), so it holds no database" +
               kDamagedAdvice};
}

// PRAGMA quick_check reads every page (O(N), no index cross-check): a file damaged in the middle is refused
// at start with a clear message, rather than failing later, half-way through a turn.
Status SqliteStore::check_integrity(const std::string& path) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_, "PRAGMA quick_check(5)", -1, &raw, nullptr);
  std::string problems;
  if (rc == SQLITE_OK) rc = SQLITE_ROW;
  while (rc == SQLITE_ROW && (rc = sqlite3_step(raw)) == SQLITE_ROW) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
    const std::string line = text ? text : "";
    if (line == "ok") continue;
    if (!problems.empty()) problems += "; ";
    problems += line;
  }
  if (rc != SQLITE_DONE && problems.empty()) problems = sqlite3_errmsg(db_);
  sqlite3_finalize(raw);
  if (problems.empty()) return {};
  return Error{"sqlite store: " + path + " is damaged (quick_check: " + problems + ")" + kDamagedAdvice};
}

}  // namespace sigil::store::sqlite
