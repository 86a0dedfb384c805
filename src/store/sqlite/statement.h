// What every file of the SQLite store shares: one use of a cached statement (Stmt), a write transaction
// (Transaction), time in milliseconds, the scope's partition, argument checks, and the macros that turn a
// failed step into the calling function's Error. Private to src/store/sqlite/.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sigil/store/store.h"
#include "sigil/text/ascii.h"

namespace sigil::store::sqlite {

// ------------------------------------------------------------------------------------------ limits

inline constexpr std::size_t kMaxKey = 512;  // item ids, task ids, exactly-once keys, slugs
inline constexpr int kMaxTopK = 1000;
inline constexpr std::int64_t kMaxMs = 9'000'000'000'000;  // about year 2255, inside system_clock's range

// ------------------------------------------------------------------------------------------ values

inline std::int64_t to_ms(TimePoint t) {
  return std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
inline TimePoint from_ms(std::int64_t ms) {
  return TimePoint(std::chrono::milliseconds(std::clamp(ms, -kMaxMs, kMaxMs)));
}

inline Error sqlite_error(sqlite3* db, std::string_view what) {
  return Error{"sqlite store: " + std::string(what) + ": " + sqlite3_errmsg(db)};
}

// ------------------------------------------------------------------------------------------ scope

// The rows a scope may see: the memory partition for memory, facts and the archive (user-wide unless the
// operator keeps memory per conversation), the conversation partition for everything else. Every query
// binds the partition as ?1 (user) and ?2 (conversation).
struct Partition {
  std::string_view user;
  std::string_view conversation;
};
inline Partition memory_partition(const Scope& s) {
  return {s.user_id, s.memory == MemoryScope::per_conversation ? std::string_view(s.conversation_id)
                                                               : std::string_view()};
}
inline Partition conversation_partition(const Scope& s) { return {s.user_id, s.conversation_id}; }

inline Status check_scope(const Scope& s) {
  if (s.user_id.empty()) return Error{"sqlite store: the scope has no user_id"};
  return {};
}
inline Status check_key(std::string_view what, std::string_view key) {
  if (key.empty()) return Error{"sqlite store: empty " + std::string(what)};
  if (key.size() > kMaxKey)
    return Error{"sqlite store: " + std::string(what) + " longer than " + std::to_string(kMaxKey) + " bytes"};
  return {};
}

using text::ascii::trim;

// ------------------------------------------------------------------------------------------ statements

// One use of a cached statement: binds, steps, reads; resets and clears its bindings when it goes.
class Stmt {
 public:
  Stmt(sqlite3* db, sqlite3_stmt* s) noexcept : db_(db), s_(s) {}
  ~Stmt() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind_partition(Partition p) { return bind_text(1, p.user).bind_text(2, p.conversation); }
  Stmt& bind_text(int i, std::string_view v) {
    if (v.size() > static_cast<std::size_t>(INT_MAX)) return note(SQLITE_TOOBIG);
    // SQLITE_TRANSIENT: SQLite copies, so a temporary argument may go before the statement steps.
    return note(
        sqlite3_bind_text(s_, i, v.empty() ? "" : v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  // As bind_text, without SQLite's copy of the bytes: `v` must stay valid until this Stmt goes (it resets
  // the statement). For the hot paths (the exactly-once log), whose arguments outlive the statement's use.
  Stmt& bind_view(int i, std::string_view v) {
    if (v.size() > static_cast<std::size_t>(INT_MAX)) return note(SQLITE_TOOBIG);
    return note(
        sqlite3_bind_text(s_, i, v.empty() ? "" : v.data(), static_cast<int>(v.size()), SQLITE_STATIC));
  }
  Stmt& bind_partition_view(Partition p) { return bind_view(1, p.user).bind_view(2, p.conversation); }
  Stmt& bind_blob(int i, std::string_view v) {
    if (v.size() > static_cast<std::size_t>(INT_MAX)) return note(SQLITE_TOOBIG);
    return note(sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Stmt& bind_int(int i, std::int64_t v) { return note(sqlite3_bind_int64(s_, i, v)); }
  // A count or limit, clamped into SQLite's signed 64-bit integers.
  Stmt& bind_size(int i, std::size_t v) {
    return bind_int(i, static_cast<std::int64_t>(std::min<std::size_t>(v, INT64_MAX)));
  }
  Stmt& bind_time(int i, TimePoint t) { return bind_int(i, to_ms(t)); }
  Stmt& bind_opt_time(int i, std::optional<TimePoint> t) {
    return t ? bind_time(i, *t) : note(sqlite3_bind_null(s_, i));
  }

  // true: a row is ready; false: done.
  Result<bool> step() {
    if (bind_rc_ != SQLITE_OK) {
      rc_ = bind_rc_;
      return Error{std::string("sqlite store: bind: ") + sqlite3_errstr(bind_rc_)};
    }
    rc_ = sqlite3_step(s_);
    if (rc_ == SQLITE_ROW) return true;
    if (rc_ == SQLITE_DONE) return false;
    return sqlite_error(db_, first_line());
  }
  // Steps to the end, ignoring rows; returns the rows changed.
  Result<std::size_t> run() {
    for (;;) {
      auto row = step();
      if (!row) return Error{row.error()};
      if (!*row) break;
    }
    return static_cast<std::size_t>(sqlite3_changes(db_));
  }
  int rc() const noexcept { return rc_; }

  std::string text(int c) const {
    const auto* p = sqlite3_column_text(s_, c);
    const int n = sqlite3_column_bytes(s_, c);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string();
  }
  // The column's bytes, valid until the next step.
  std::string_view blob(int c) const {
    const void* p = sqlite3_column_blob(s_, c);
    const int n = sqlite3_column_bytes(s_, c);
    return p ? std::string_view(static_cast<const char*>(p), static_cast<std::size_t>(n))
             : std::string_view();
  }
  std::int64_t integer(int c) const { return sqlite3_column_int64(s_, c); }
  double real(int c) const { return sqlite3_column_double(s_, c); }
  bool is_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  TimePoint time(int c) const { return from_ms(integer(c)); }
  std::optional<TimePoint> opt_time(int c) const {
    return is_null(c) ? std::nullopt : std::optional<TimePoint>(time(c));
  }

 private:
  Stmt& note(int rc) {
    if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
    return *this;
  }
  std::string first_line() const {
    std::string_view sql = sqlite3_sql(s_);
    sql = trim(sql);
    return std::string(sql.substr(0, std::min(sql.find('\n'), std::size_t{60})));
  }

  sqlite3* db_;
  sqlite3_stmt* s_;
  int bind_rc_ = SQLITE_OK;
  int rc_ = SQLITE_OK;
};

// BEGIN IMMEDIATE (takes the write lock at once, so a read-then-write never meets SQLITE_BUSY halfway);
// rolled back unless committed.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) noexcept : db_(db) {}
  // With the connection's own prepared "BEGIN IMMEDIATE" and "COMMIT" (kept in its statement cache): for
  // the transactions of every turn, since sqlite3_exec compiles its SQL again at each call.
  Transaction(sqlite3* db, sqlite3_stmt* begin, sqlite3_stmt* commit) noexcept
      : db_(db), begin_(begin), commit_(commit) {}
  ~Transaction() {
    if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status begin() {
    if (!run(begin_, "BEGIN IMMEDIATE")) return sqlite_error(db_, "begin");
    open_ = true;
    return {};
  }
  Status commit() {
    if (!run(commit_, "COMMIT")) return sqlite_error(db_, "commit");
    open_ = false;
    return {};
  }

 private:
  bool run(sqlite3_stmt* prepared, const char* sql) {
    if (prepared == nullptr) return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    const int rc = sqlite3_step(prepared);
    sqlite3_reset(prepared);
    return rc == SQLITE_DONE;
  }

  sqlite3* db_;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  bool open_ = false;
};

// Returns the Error of a failed Result or Status from the calling function.
#define STORE_TRY(expr)                                       \
  do {                                                        \
    if (auto&& store_try_result = (expr); !store_try_result)  \
      return ::sigil::store::Error{store_try_result.error()}; \
  } while (0)

// Declares `Stmt name` for the cached statement `sql` on the store's write connection, or returns its
// error. Used inside SqliteStore's members (prepare() and db_ are theirs).
#define STORE_STMT(name, sql)                                                  \
  auto name##_prepared = prepare(sql);                                         \
  if (!name##_prepared) return ::sigil::store::Error{name##_prepared.error()}; \
  Stmt name(db_, *name##_prepared)

// Declares `Stmt name` for the cached statement `sql` on the Reader `r`, or returns its error.
#define STORE_READ_STMT(name, r, sql)                                          \
  auto name##_prepared = prepare_on((r).db, *(r).statements, sql);             \
  if (!name##_prepared) return ::sigil::store::Error{name##_prepared.error()}; \
  Stmt name((r).db, *name##_prepared)

// Steps `q` once into `bool name` (a row is ready), or returns its error.
#define STORE_STEP(name, q)                                                  \
  auto name##_stepped = (q).step();                                          \
  if (!name##_stepped) return ::sigil::store::Error{name##_stepped.error()}; \
  const bool name = *name##_stepped  // NOLINT(bugprone-macro-parentheses): a declaration

// Every row `q` still yields, each made by read(q) (a const Stmt&): the one loop of the list readers.
template <class Read>
auto read_rows(Stmt& q, Read&& read) -> Result<std::vector<std::invoke_result_t<Read&, const Stmt&>>> {
  std::vector<std::invoke_result_t<Read&, const Stmt&>> out;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    out.push_back(read(std::as_const(q)));
  }
  return out;
}

// Rows of an FTS query (bm25 in column 0, ascending) into hits, best first, stopping at min_score.
template <class Hit, class Fill>
Result<std::vector<Hit>> collect_hits(Stmt& q, double min_score, Fill&& fill) {
  std::vector<Hit> hits;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    const double score = score_from_bm25(q.real(0));
    if (score < min_score) break;  // rows come best first
    hits.push_back(fill(q, score));
  }
  return hits;
}

}  // namespace sigil::store::sqlite
