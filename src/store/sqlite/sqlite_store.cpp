// SqliteStore: opening, the two connections, prepared statements, counters and sync switching.
#include "store/sqlite/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <utility>

#include "sigil/text/random_id.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kBumpCounter = R"sql(
UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ?1)sql";
constexpr std::string_view kGetMeta = R"sql(SELECT value FROM meta WHERE key = ?1)sql";
constexpr std::string_view kSyncFull = "PRAGMA synchronous=FULL";
constexpr std::string_view kSyncNormal = "PRAGMA synchronous=NORMAL";

// 128 random bits as hex.
std::string random_session() { return text::random_id("", 32); }

}  // namespace

SqliteStore::SqliteStore(sqlite3* db, const OpenOptions& options, std::string session)
    : db_(db), options_(options), session_(std::move(session)) {}

SqliteStore::~SqliteStore() {
  if (indexing_) {  // what is pending is indexed now rather than at the next open
    std::lock_guard lock(mutex_);
    (void)index_pending_messages();
  }
  for (auto& [sql, stmt] : reader_statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(reader_);
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<Store>> SqliteStore::open(const std::string& path, const OpenOptions& options) {
  if (!sqlite3_compileoption_used("ENABLE_FTS5"))
    return Error{"sqlite store: this SQLite library was built without FTS5"};
  const bool in_memory = path == ":memory:" || path.empty();
  if (!in_memory) STORE_TRY(refuse_empty_file(path));
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Error error{"sqlite store: cannot open " + path + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc))};
    sqlite3_close_v2(db);
    return error;
  }
  OpenOptions effective = options;
  // Nothing to fsync in memory: switching synchronous around each exactly-once write would only cost.
  if (path == ":memory:" || path.empty()) effective.sync_once_log = false;
  std::unique_ptr<SqliteStore> store(new SqliteStore(db, effective, random_session()));
  store->in_memory_ = in_memory;
  std::lock_guard lock(store->mutex_);
  STORE_TRY(store->configure(in_memory));
  if (!in_memory) STORE_TRY(store->check_integrity(path));
  STORE_TRY(store->migrate(path));
  STORE_TRY(store->index_pending_messages());  // rows a process killed before its next batch left pending
  store->indexing_ = true;  // a store refused at open (a newer schema) is never written, not even here
  STORE_TRY(store->load_page_salt());
  if (path != ":memory:" && !path.empty()) STORE_TRY(store->open_reader(path));
  return std::unique_ptr<Store>(std::move(store));
}

Status SqliteStore::configure(bool in_memory) {
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_commit_hook(
      db_,
      [](void* commits) {
        ++*static_cast<std::atomic<std::uint64_t>*>(commits);
        return 0;  // the commit goes on
      },
      &commits_);
  sqlite3_busy_timeout(db_,
                       static_cast<int>(std::clamp<std::int64_t>(options_.busy_timeout.count(), 0, INT_MAX)));
  {
    STORE_STMT(q, "PRAGMA journal_mode=WAL");
    STORE_STEP(row, q);
    const std::string mode = row ? q.text(0) : std::string();
    if (!in_memory && mode != "wal")
      return Error{"sqlite store: cannot switch to WAL (journal_mode is '" + mode + "')"};
  }
  STORE_TRY(exec("PRAGMA synchronous=NORMAL"));
  STORE_TRY(exec("PRAGMA foreign_keys=ON"));
  return {};
}

Status SqliteStore::load_page_salt() {
  STORE_STMT(q, kGetMeta);
  q.bind_text(1, "page_salt");
  STORE_STEP(row, q);
  if (!row) return Error{"sqlite store: the database has no page salt"};
  page_salt_ = q.text(0);
  return {};
}

Status SqliteStore::open_reader(const std::string& path) {
  // Opened after the migrations, so it never sees an older schema. Read-only: it cannot take the write
  // lock, so it never waits for the writer (WAL), only, briefly, for WAL recovery (busy timeout).
  const int rc = sqlite3_open_v2(path.c_str(), &reader_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK)
    return Error{"sqlite store: cannot open " + path +
                 " for reading: " + (reader_ ? sqlite3_errmsg(reader_) : sqlite3_errstr(rc))};
  sqlite3_extended_result_codes(reader_, 1);
  sqlite3_busy_timeout(reader_,
                       static_cast<int>(std::clamp<std::int64_t>(options_.busy_timeout.count(), 0, INT_MAX)));
  return {};
}

namespace {
// The store this thread reads together on (begin_reads), if any: one per thread, so reader() knows that
// the lock is held already and the snapshot open.
thread_local const SqliteStore* t_reading_together = nullptr;
}  // namespace

bool SqliteStore::reading_together() const noexcept { return t_reading_together == this; }

SqliteStore::Reader SqliteStore::reader() {
  if (reader_ == nullptr) return Reader{std::unique_lock(mutex_), db_, &statements_};
  if (reading_together()) return Reader{std::unique_lock<std::mutex>(), reader_, &reader_statements_};
  read_transactions_.fetch_add(1, std::memory_order_relaxed);
  return Reader{std::unique_lock(reader_mutex_), reader_, &reader_statements_};
}

void SqliteStore::begin_reads() {
  if (reader_ == nullptr) return;  // in memory: one connection, nothing to save
  if (reading_together()) {
    ++together_depth_;
    return;
  }
  if (t_reading_together != nullptr) return;  // together on another store: these reads go one by one
  std::unique_lock lock(reader_mutex_);
  // Deferred: the snapshot is taken at the first read, so it holds every commit made before that read.
  if (!run_cached(reader_, reader_statements_, "BEGIN")) return;  // one by one, then
  read_transactions_.fetch_add(1, std::memory_order_relaxed);
  together_lock_ = std::move(lock);
  together_depth_ = 1;
  t_reading_together = this;
}

void SqliteStore::end_reads() noexcept {
  if (!reading_together() || --together_depth_ > 0) return;
  // Ends the read transaction (a read cannot fail to commit; a read that failed may have ended it already).
  (void)run_cached(reader_, reader_statements_, "COMMIT");
  t_reading_together = nullptr;
  // Moved out before the unlock: the next reader's begin_reads writes together_lock_ as soon as it has
  // the mutex, so this thread must not touch the member after releasing it.
  std::unique_lock<std::mutex> release = std::move(together_lock_);
}

void SqliteStore::renew_reads_together() {
  if (!reading_together()) return;
  (void)run_cached(reader_, reader_statements_, "COMMIT");
  if (run_cached(reader_, reader_statements_, "BEGIN"))
    read_transactions_.fetch_add(1, std::memory_order_relaxed);
}

Result<sqlite3_stmt*> SqliteStore::prepare(std::string_view sql) { return prepare_on(db_, statements_, sql); }

Result<sqlite3_stmt*> SqliteStore::prepare_on(sqlite3* db, StatementCache& cache, std::string_view sql) {
  if (const auto it = cache.find(sql); it != cache.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  if (sql.size() > static_cast<std::size_t>(INT_MAX)) return Error{"sqlite store: statement too long"};
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                         nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return sqlite_error(db, "prepare");
  }
  cache.emplace(sql, stmt);
  return stmt;
}

bool SqliteStore::run_cached(sqlite3* db, StatementCache& cache, std::string_view sql) {
  auto stmt = prepare_on(db, cache, sql);
  if (!stmt) return false;
  const int rc = sqlite3_step(*stmt);
  sqlite3_reset(*stmt);
  return rc == SQLITE_DONE;
}

Result<std::pair<sqlite3_stmt*, sqlite3_stmt*>> SqliteStore::begin_commit() {
  auto begin = prepare("BEGIN IMMEDIATE");
  if (!begin) return std::move(begin).error();
  auto commit = prepare("COMMIT");
  if (!commit) return std::move(commit).error();
  return std::pair{*begin, *commit};
}

Status SqliteStore::exec(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return sqlite_error(db_, sql);
  return {};
}

Result<std::int64_t> SqliteStore::next_counter(std::string_view name) {
  {
    STORE_STMT(q, kBumpCounter);
    auto changed = q.bind_text(1, name).run();
    if (!changed) return Error{changed.error()};
    if (*changed != 1) return Error{"sqlite store: no counter " + std::string(name)};
  }
  STORE_STMT(q, kGetMeta);
  q.bind_text(1, name);
  STORE_STEP(row, q);
  if (!row) return Error{"sqlite store: no counter " + std::string(name)};
  return q.integer(0);
}

Status SqliteStore::full_sync(bool on) {
  if (!options_.sync_once_log) return {};
  STORE_STMT(q, on ? kSyncFull : kSyncNormal);
  STORE_TRY(q.run());
  return {};
}

}  // namespace sigil::store::sqlite
