#include "store/sqlite/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <climits>
#include <filesystem>
#include <optional>
#include <random>
#include <unordered_set>
#include <utility>

#include "sigil/store/sha256.h"

namespace sigil::store::sqlite {
namespace {

// ------------------------------------------------------------------------------------------ schema

// Ordered: migration i takes a database from version i to i + 1. Never edit a released migration; append.
// The meta table holds the page-slug salt and counters; every user-data table has user_id and
// conversation_id, which every query binds.
constexpr std::array<const char*, 2> kMigrations = {
    // 1: the first schema.
    R"sql(
CREATE TABLE meta(
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
INSERT INTO meta(key, value) VALUES ('page_salt', lower(hex(randomblob(16)))), ('page_counter', '0'),
                                    ('task_counter', '0');

CREATE TABLE memory_items(
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    item_id         TEXT NOT NULL,
    value_json      TEXT NOT NULL CHECK (json_valid(value_json)),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    expires_at      INTEGER,
    PRIMARY KEY (user_id, conversation_id, item_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX memory_items_expiry ON memory_items(expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE facts(
    id              INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    UNIQUE (user_id, conversation_id, text)
) STRICT;

CREATE TABLE archive(
    id              INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    title           TEXT NOT NULL,
    body            TEXT NOT NULL,
    source          TEXT NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX archive_scope ON archive(user_id, conversation_id);
CREATE VIRTUAL TABLE archive_fts USING fts5(
    title, body, content = 'archive', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER archive_fts_insert AFTER INSERT ON archive BEGIN
    INSERT INTO archive_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER archive_fts_delete AFTER DELETE ON archive BEGIN
    INSERT INTO archive_fts(archive_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER archive_fts_update AFTER UPDATE ON archive BEGIN
    INSERT INTO archive_fts(archive_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO archive_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;

CREATE TABLE messages(
    id              INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    role            TEXT NOT NULL,
    text            TEXT NOT NULL,
    turn_id         TEXT NOT NULL,
    at              INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_scope ON messages(user_id, conversation_id, id);
CREATE VIRTUAL TABLE messages_fts USING fts5(
    text, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;

CREATE TABLE tasks(
    seq             INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    id              TEXT NOT NULL,
    message         TEXT NOT NULL,
    due_at          INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    fired_at        INTEGER,
    UNIQUE (user_id, conversation_id, id)
) STRICT;
CREATE INDEX tasks_pending ON tasks(due_at) WHERE fired_at IS NULL;

CREATE TABLE once_log(
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    key             TEXT NOT NULL,
    session         TEXT NOT NULL,
    result_json     TEXT CHECK (result_json IS NULL OR json_valid(result_json)),
    begun_at        INTEGER NOT NULL,
    completed_at    INTEGER,
    PRIMARY KEY (user_id, conversation_id, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE pages(
    slug               TEXT PRIMARY KEY,
    user_id            TEXT NOT NULL,
    conversation_id    TEXT NOT NULL,
    title              TEXT NOT NULL,
    html               TEXT NOT NULL,
    csp_allows_scripts INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
) STRICT;
CREATE INDEX pages_scope ON pages(user_id, conversation_id);
)sql",
    // 2: per-conversation settings (say mode).
    R"sql(
CREATE TABLE conversation_settings(
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    name            TEXT NOT NULL,
    value           TEXT NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (user_id, conversation_id, name)
) STRICT, WITHOUT ROWID;
)sql",
};

// ------------------------------------------------------------------------------------------ statements

constexpr std::string_view kSetItem = R"sql(
INSERT INTO memory_items(user_id, conversation_id, item_id, value_json, created_at, updated_at, expires_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6)
ON CONFLICT (user_id, conversation_id, item_id) DO UPDATE SET
    value_json = excluded.value_json,
    created_at = CASE WHEN memory_items.expires_at IS NOT NULL AND memory_items.expires_at <= excluded.updated_at
                      THEN excluded.created_at ELSE memory_items.created_at END,
    updated_at = excluded.updated_at,
    expires_at = excluded.expires_at)sql";
constexpr std::string_view kGetItem = R"sql(
SELECT item_id, value_json, created_at, updated_at, expires_at FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND item_id = ?3 AND (expires_at IS NULL OR expires_at > ?4))sql";
// No RETURNING anywhere: SQLite 3.40 returns NULL for some RETURNING expressions over NULL columns.
constexpr std::string_view kIsItemLive = R"sql(
SELECT 1 FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND item_id = ?3 AND (expires_at IS NULL OR expires_at > ?4))sql";
constexpr std::string_view kDeleteItem = R"sql(
DELETE FROM memory_items WHERE user_id = ?1 AND conversation_id = ?2 AND item_id = ?3)sql";
constexpr std::string_view kListItems = R"sql(
SELECT item_id, value_json, created_at, updated_at, expires_at FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND (expires_at IS NULL OR expires_at > ?3)
ORDER BY item_id)sql";
constexpr std::string_view kCleanupItems = R"sql(
DELETE FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND expires_at IS NOT NULL AND expires_at <= ?3)sql";
constexpr std::string_view kCleanupAllItems = R"sql(
DELETE FROM memory_items WHERE expires_at IS NOT NULL AND expires_at <= ?1)sql";

constexpr std::string_view kAddFact = R"sql(
INSERT INTO facts(user_id, conversation_id, text, created_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (user_id, conversation_id, text) DO NOTHING)sql";
constexpr std::string_view kListFacts = R"sql(
SELECT id, text, created_at FROM facts WHERE user_id = ?1 AND conversation_id = ?2 ORDER BY id)sql";
constexpr std::string_view kFindFact = R"sql(
SELECT id FROM facts WHERE user_id = ?1 AND conversation_id = ?2 AND text = ?3)sql";
constexpr std::string_view kDeleteFact = R"sql(
DELETE FROM facts WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3)sql";
constexpr std::string_view kUpdateFact = R"sql(
UPDATE facts SET text = ?4 WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3)sql";

constexpr std::string_view kArchiveItem = R"sql(
INSERT INTO archive(user_id, conversation_id, title, body, source, created_at)
SELECT user_id, conversation_id, item_id,
       CASE json_type(value_json) WHEN 'text' THEN json_extract(value_json, '$') ELSE value_json END,
       'memory', ?4
FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND item_id = ?3 AND (expires_at IS NULL OR expires_at > ?4))sql";
constexpr std::string_view kRemoveArchivedItem = R"sql(
DELETE FROM memory_items WHERE user_id = ?1 AND conversation_id = ?2 AND item_id = ?3)sql";
constexpr std::string_view kAddArchive = R"sql(
INSERT INTO archive(user_id, conversation_id, title, body, source, created_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6))sql";
// bm25() first: collect_hits() reads it from column 0.
constexpr std::string_view kSearchArchive = R"sql(
SELECT bm25(archive_fts) AS bm25_rank, a.id, a.title, a.body, a.source, a.created_at
FROM archive_fts JOIN archive AS a ON a.id = archive_fts.rowid
WHERE archive_fts MATCH ?3 AND a.user_id = ?1 AND a.conversation_id = ?2
ORDER BY bm25_rank, a.id DESC
LIMIT ?4)sql";

constexpr std::string_view kAppendMessage = R"sql(
INSERT INTO messages(user_id, conversation_id, role, text, turn_id, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6))sql";
constexpr std::string_view kRecentMessages = R"sql(
SELECT id, role, text, turn_id, at FROM (
    SELECT id, role, text, turn_id, at FROM messages
    WHERE user_id = ?1 AND conversation_id = ?2 ORDER BY id DESC LIMIT ?3)
ORDER BY id)sql";
constexpr std::string_view kSearchMessages = R"sql(
SELECT bm25(messages_fts) AS bm25_rank, m.id, m.role, m.text, m.turn_id, m.at
FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid
WHERE messages_fts MATCH ?3 AND m.user_id = ?1 AND m.conversation_id = ?2
ORDER BY bm25_rank, m.id DESC
LIMIT ?4)sql";

constexpr std::string_view kAddTask = R"sql(
INSERT INTO tasks(user_id, conversation_id, id, message, due_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (user_id, conversation_id, id) DO NOTHING)sql";
constexpr std::string_view kListTasks = R"sql(
SELECT user_id, conversation_id, id, message, due_at, created_at, fired_at FROM tasks
WHERE user_id = ?1 AND conversation_id = ?2 AND fired_at IS NULL ORDER BY due_at, seq)sql";
constexpr std::string_view kDeleteTask = R"sql(
DELETE FROM tasks WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3 AND fired_at IS NULL)sql";
constexpr std::string_view kDeleteTasksDueAt = R"sql(
DELETE FROM tasks WHERE user_id = ?1 AND conversation_id = ?2 AND due_at = ?3 AND fired_at IS NULL)sql";
constexpr std::string_view kDueTasks = R"sql(
SELECT user_id, conversation_id, id, message, due_at, created_at, fired_at FROM tasks
WHERE fired_at IS NULL AND due_at <= ?1 ORDER BY due_at, seq LIMIT ?2)sql";
constexpr std::string_view kMarkFired = R"sql(
UPDATE tasks SET fired_at = ?4
WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3 AND fired_at IS NULL)sql";

constexpr std::string_view kOnceBegin = R"sql(
INSERT INTO once_log(user_id, conversation_id, key, session, begun_at) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (user_id, conversation_id, key) DO NOTHING)sql";
constexpr std::string_view kOnceGet = R"sql(
SELECT session, result_json, begun_at, completed_at FROM once_log
WHERE user_id = ?1 AND conversation_id = ?2 AND key = ?3)sql";
constexpr std::string_view kOnceComplete = R"sql(
INSERT INTO once_log(user_id, conversation_id, key, session, result_json, begun_at, completed_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
ON CONFLICT (user_id, conversation_id, key) DO UPDATE SET
    result_json = excluded.result_json, completed_at = excluded.completed_at
WHERE once_log.completed_at IS NULL)sql";
constexpr std::string_view kOnceRelease = R"sql(
DELETE FROM once_log WHERE user_id = ?1 AND conversation_id = ?2 AND key = ?3 AND completed_at IS NULL)sql";
constexpr std::string_view kOnceInDoubt = R"sql(
SELECT key, begun_at FROM once_log
WHERE user_id = ?1 AND conversation_id = ?2 AND completed_at IS NULL AND session <> ?3
ORDER BY begun_at, key)sql";

constexpr std::string_view kPutPage = R"sql(
INSERT INTO pages(slug, user_id, conversation_id, title, html, csp_allows_scripts, created_at, updated_at)
VALUES (?3, ?1, ?2, ?4, ?5, ?6, ?7, ?7)
ON CONFLICT (slug) DO UPDATE SET
    title = excluded.title, html = excluded.html, csp_allows_scripts = excluded.csp_allows_scripts,
    updated_at = excluded.updated_at
WHERE pages.user_id = excluded.user_id AND pages.conversation_id = excluded.conversation_id)sql";
constexpr std::string_view kGetPage = R"sql(
SELECT slug, title, html, csp_allows_scripts, created_at, updated_at FROM pages WHERE slug = ?1)sql";
constexpr std::string_view kListPages = R"sql(
SELECT slug, title, html, csp_allows_scripts, created_at, updated_at FROM pages
WHERE user_id = ?1 AND conversation_id = ?2 ORDER BY created_at, slug)sql";
constexpr std::string_view kDeletePage = R"sql(
DELETE FROM pages WHERE user_id = ?1 AND conversation_id = ?2 AND slug = ?3)sql";

constexpr std::string_view kSetSetting = R"sql(
INSERT INTO conversation_settings(user_id, conversation_id, name, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT(user_id, conversation_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at)sql";
constexpr std::string_view kGetSetting = R"sql(
SELECT value FROM conversation_settings WHERE user_id = ?1 AND conversation_id = ?2 AND name = ?3)sql";

constexpr std::string_view kBumpCounter = R"sql(
UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ?1)sql";
constexpr std::string_view kGetMeta = R"sql(SELECT value FROM meta WHERE key = ?1)sql";
constexpr std::string_view kSyncFull = "PRAGMA synchronous=FULL";
constexpr std::string_view kSyncNormal = "PRAGMA synchronous=NORMAL";

// ------------------------------------------------------------------------------------------ limits

constexpr std::size_t kMaxKey = 512;  // item ids, task ids, exactly-once keys, slugs
constexpr int kMaxTopK = 1000;
constexpr std::size_t kMaxSlugWords = 40;
constexpr int kGeneratedIdAttempts = 16;
constexpr std::int64_t kMaxMs = 9'000'000'000'000;  // about year 2255, inside system_clock's range

// ------------------------------------------------------------------------------------------ helpers

std::int64_t to_ms(TimePoint t) {
  return std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
TimePoint from_ms(std::int64_t ms) {
  return TimePoint(std::chrono::milliseconds(std::clamp(ms, -kMaxMs, kMaxMs)));
}

Error sqlite_error(sqlite3* db, std::string_view what) {
  return Error{"sqlite store: " + std::string(what) + ": " + sqlite3_errmsg(db)};
}

// The rows a scope may see: the memory partition for memory, facts and the archive (user-wide unless the
// operator keeps memory per conversation), the conversation partition for everything else.
struct Partition {
  std::string_view user;
  std::string_view conversation;
};
Partition memory_partition(const Scope& s) {
  return {s.user_id, s.memory == MemoryScope::per_conversation ? std::string_view(s.conversation_id)
                                                               : std::string_view()};
}
Partition conversation_partition(const Scope& s) { return {s.user_id, s.conversation_id}; }

Status check_scope(const Scope& s) {
  if (s.user_id.empty()) return Error{"sqlite store: the scope has no user_id"};
  return {};
}
Status check_key(std::string_view what, std::string_view key) {
  if (key.empty()) return Error{"sqlite store: empty " + std::string(what)};
  if (key.size() > kMaxKey)
    return Error{"sqlite store: " + std::string(what) + " longer than " + std::to_string(kMaxKey) + " bytes"};
  return {};
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool contains_ignoring_ascii_case(std::string_view hay, std::string_view needle) {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                     [](char a, char b) { return ascii_lower(a) == ascii_lower(b); }) != hay.end();
}

// 128 random bits as hex.
std::string random_session() {
  std::random_device device;
  Sha256 h;
  for (int i = 0; i < 8; ++i) h.update(std::to_string(device()));
  return to_hex(h.finish()).substr(0, 32);
}

// "<length>:<bytes>;" per field, as in once_key().
void hash_field(Sha256& h, std::string_view bytes) {
  h.update(std::to_string(bytes.size()));
  h.update(":");
  h.update(bytes);
  h.update(";");
}

std::string slug_words(std::string_view title) {
  std::string out;
  bool dash = false;
  for (const char c : title) {
    const char l = ascii_lower(c);
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      if (dash && !out.empty()) out += '-';
      dash = false;
      if (out.size() >= kMaxSlugWords) break;
      out += l;
    } else {
      dash = true;
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

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
  Stmt& bind_int(int i, std::int64_t v) { return note(sqlite3_bind_int64(s_, i, v)); }
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
  ~Transaction() {
    if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status begin() {
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
      return sqlite_error(db_, "begin");
    open_ = true;
    return {};
  }
  Status commit() {
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
      return sqlite_error(db_, "commit");
    open_ = false;
    return {};
  }

 private:
  sqlite3* db_;
  bool open_ = false;
};

#define STORE_TRY(expr)                                       \
  do {                                                        \
    if (auto&& store_try_result = (expr); !store_try_result)  \
      return ::sigil::store::Error{store_try_result.error()}; \
  } while (0)

// Declares `Stmt name` for the cached statement `sql`, or returns its error.
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

MemoryItem read_item(const Stmt& q) {
  return MemoryItem{q.text(0), q.text(1), q.time(2), q.time(3), q.opt_time(4)};
}
ScheduledTask read_task(const Stmt& q) {
  ScheduledTask t;
  t.scope.user_id = q.text(0);
  t.scope.conversation_id = q.text(1);
  t.id = q.text(2);
  t.message = q.text(3);
  t.due_at = q.time(4);
  t.created_at = q.time(5);
  t.fired_at = q.opt_time(6);
  return t;
}
Page read_page(const Stmt& q) {
  return Page{q.text(0), q.text(1), q.text(2), q.integer(3) != 0, q.time(4), q.time(5)};
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

Status check_min_score(double min_score) {
  if (!(min_score >= 0.0 && min_score <= 1.0)) return Error{"sqlite store: min_score must be in [0, 1]"};
  return {};
}

}  // namespace

// ------------------------------------------------------------------------------------------ lifecycle

int SqliteStore::latest_schema_version() noexcept { return static_cast<int>(kMigrations.size()); }

SqliteStore::SqliteStore(sqlite3* db, const OpenOptions& options, std::string session)
    : db_(db), options_(options), session_(std::move(session)) {}

SqliteStore::~SqliteStore() {
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
  std::lock_guard lock(store->mutex_);
  STORE_TRY(store->configure(in_memory));
  if (!in_memory) STORE_TRY(store->check_integrity(path));
  STORE_TRY(store->migrate(path));
  STORE_TRY(store->load_page_salt());
  if (path != ":memory:" && !path.empty()) STORE_TRY(store->open_reader(path));
  return std::unique_ptr<Store>(std::move(store));
}

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

Status SqliteStore::configure(bool in_memory) {
  sqlite3_extended_result_codes(db_, 1);
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

Status SqliteStore::migrate(const std::string& path) {
  const int latest = latest_schema_version();
  for (;;) {
    // Reading the version under the write lock: two processes opening a new file migrate it once.
    Transaction tx(db_);
    STORE_TRY(tx.begin());
    STORE_TRY(
        exec("CREATE TABLE IF NOT EXISTS schema_version("
             "id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)"));
    STORE_TRY(exec("INSERT OR IGNORE INTO schema_version(id, version) VALUES (1, 0)"));
    std::int64_t version = 0;
    {
      STORE_STMT(q, "SELECT version FROM schema_version WHERE id = 1");
      STORE_STEP(row, q);
      if (row) version = q.integer(0);
    }
    if (version > latest || version < 0)
      return Error{"sqlite store: " + path + " has schema version " + std::to_string(version) +
                   ", newer than this build's " + std::to_string(latest) +
                   ": refusing to open it (upgrade sigil)"};
    if (version == latest) return tx.commit();
    char* message = nullptr;
    if (sqlite3_exec(db_, kMigrations[static_cast<std::size_t>(version)], nullptr, nullptr, &message) !=
        SQLITE_OK) {
      Error error{"sqlite store: migration to version " + std::to_string(version + 1) +
                  " failed: " + (message ? message : sqlite3_errmsg(db_))};
      sqlite3_free(message);
      return error;
    }
    {
      STORE_STMT(q, "UPDATE schema_version SET version = ?1 WHERE id = 1");
      STORE_TRY(q.bind_int(1, version + 1).run());
    }
    STORE_TRY(tx.commit());
  }
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

SqliteStore::Reader SqliteStore::reader() {
  if (reader_ == nullptr) return Reader{std::unique_lock(mutex_), db_, &statements_};
  return Reader{std::unique_lock(reader_mutex_), reader_, &reader_statements_};
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

// ------------------------------------------------------------------------------------------ memory items

Status SqliteStore::set_item(const Scope& scope, std::string_view item_id, std::string_view value_json,
                             std::optional<TimePoint> expires_at, TimePoint now) {
  STORE_TRY(check_scope(scope));
  STORE_TRY(check_key("item id", item_id));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kSetItem);
  q.bind_partition(memory_partition(scope)).bind_text(3, item_id).bind_text(4, value_json);
  q.bind_time(5, now).bind_opt_time(6, expires_at);
  if (auto done = q.run(); !done) {
    if (q.rc() == SQLITE_CONSTRAINT_CHECK) return Error{"sqlite store: the item's value is not valid JSON"};
    return Error{done.error()};
  }
  return {};
}

Result<std::optional<MemoryItem>> SqliteStore::get_item(const Scope& scope, std::string_view item_id,
                                                        TimePoint now) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kGetItem);
  q.bind_partition(memory_partition(scope)).bind_text(3, item_id).bind_time(4, now);
  STORE_STEP(row, q);
  if (!row) return std::optional<MemoryItem>();
  return std::optional<MemoryItem>(read_item(q));
}

Result<bool> SqliteStore::delete_item(const Scope& scope, std::string_view item_id, TimePoint now) {
  STORE_TRY(check_scope(scope));
  const Partition part = memory_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  bool live = false;
  {
    STORE_STMT(q, kIsItemLive);
    q.bind_partition(part).bind_text(3, item_id).bind_time(4, now);
    STORE_STEP(row, q);
    live = row;
  }
  {
    STORE_STMT(q, kDeleteItem);
    STORE_TRY(q.bind_partition(part).bind_text(3, item_id).run());
  }
  STORE_TRY(tx.commit());
  return live;
}

Result<std::vector<MemoryItem>> SqliteStore::list_items(const Scope& scope, TimePoint now) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kListItems);
  q.bind_partition(memory_partition(scope)).bind_time(3, now);
  std::vector<MemoryItem> items;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    items.push_back(read_item(q));
  }
  return items;
}

Result<std::size_t> SqliteStore::cleanup_expired(const Scope& scope, TimePoint now) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kCleanupItems);
  return q.bind_partition(memory_partition(scope)).bind_time(3, now).run();
}

Result<std::size_t> SqliteStore::cleanup_expired_all(TimePoint now) {
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kCleanupAllItems);
  return q.bind_time(1, now).run();
}

// ------------------------------------------------------------------------------------------ facts

Result<bool> SqliteStore::remember(const Scope& scope, std::string_view fact, TimePoint now) {
  STORE_TRY(check_scope(scope));
  fact = trim(fact);
  if (fact.empty()) return Error{"sqlite store: empty fact"};
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kAddFact);
  q.bind_partition(memory_partition(scope)).bind_text(3, fact).bind_time(4, now);
  auto changed = q.run();
  if (!changed) return Error{changed.error()};
  return *changed == 1;
}

namespace {

// The ids of the facts `fact` names: the one equal to it, else every one containing it ignoring ASCII case.
// (Parameters named as the members STORE_STMT uses.)
template <class Prepare>
Result<std::vector<std::int64_t>> match_facts(sqlite3* db_, Prepare&& prepare, Partition part,
                                              std::string_view fact) {
  std::vector<std::int64_t> ids;
  {
    STORE_STMT(q, kFindFact);
    q.bind_partition(part).bind_text(3, fact);
    STORE_STEP(row, q);
    if (row) {
      ids.push_back(q.integer(0));
      return ids;
    }
  }
  STORE_STMT(q, kListFacts);
  q.bind_partition(part);
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    if (contains_ignoring_ascii_case(q.text(1), fact)) ids.push_back(q.integer(0));
  }
  return ids;
}

}  // namespace

Result<std::size_t> SqliteStore::forget(const Scope& scope, std::string_view fact) {
  STORE_TRY(check_scope(scope));
  fact = trim(fact);
  if (fact.empty()) return Error{"sqlite store: empty fact"};
  const Partition part = memory_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  auto ids = match_facts(
      db_, [this](std::string_view sql) { return prepare(sql); }, part, fact);
  if (!ids) return Error{ids.error()};
  for (const std::int64_t id : *ids) {
    STORE_STMT(q, kDeleteFact);
    STORE_TRY(q.bind_partition(part).bind_int(3, id).run());
  }
  STORE_TRY(tx.commit());
  return ids->size();
}

Result<Correction> SqliteStore::correct(const Scope& scope, std::string_view old_fact,
                                        std::string_view new_fact, TimePoint now) {
  STORE_TRY(check_scope(scope));
  old_fact = trim(old_fact);
  new_fact = trim(new_fact);
  if (old_fact.empty() || new_fact.empty()) return Error{"sqlite store: empty fact"};
  (void)now;  // facts keep their first created_at through corrections
  const Partition part = memory_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  auto ids = match_facts(
      db_, [this](std::string_view sql) { return prepare(sql); }, part, old_fact);
  if (!ids) return Error{ids.error()};
  if (ids->empty()) return Correction{};
  if (ids->size() > 1)
    return Error{"sqlite store: " + std::to_string(ids->size()) + " facts contain '" + std::string(old_fact) +
                 "': say which one"};
  const std::int64_t id = ids->front();
  Correction out;
  out.replaced = 1;
  {
    STORE_STMT(q, "SELECT text FROM facts WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3");
    q.bind_partition(part).bind_int(3, id);
    STORE_STEP(row, q);
    if (row) out.old_text = q.text(0);
  }
  std::optional<std::int64_t> existing;  // a fact already equal to new_fact
  {
    STORE_STMT(q, kFindFact);
    q.bind_partition(part).bind_text(3, new_fact);
    STORE_STEP(row, q);
    if (row) existing = q.integer(0);
  }
  if (existing && *existing != id) {
    STORE_STMT(q, kDeleteFact);  // the new text is already known: the corrected one merges into it
    STORE_TRY(q.bind_partition(part).bind_int(3, id).run());
  } else if (!existing) {
    STORE_STMT(q, kUpdateFact);
    STORE_TRY(q.bind_partition(part).bind_int(3, id).bind_text(4, new_fact).run());
  }
  STORE_TRY(tx.commit());
  return out;
}

Result<std::vector<Fact>> SqliteStore::list_facts(const Scope& scope) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kListFacts);
  q.bind_partition(memory_partition(scope));
  std::vector<Fact> facts;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    facts.push_back(Fact{q.integer(0), q.text(1), q.time(2)});
  }
  return facts;
}

// ------------------------------------------------------------------------------------------ archive

Result<ArchiveOutcome> SqliteStore::archive_items(const Scope& scope, std::span<const std::string> item_ids,
                                                  TimePoint now) {
  STORE_TRY(check_scope(scope));
  const Partition part = memory_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  ArchiveOutcome out;
  std::unordered_set<std::string_view> seen;
  for (const std::string& id : item_ids) {
    if (!seen.insert(id).second) continue;
    std::size_t moved = 0;
    {
      STORE_STMT(q, kArchiveItem);
      auto changed = q.bind_partition(part).bind_text(3, id).bind_time(4, now).run();
      if (!changed) return Error{changed.error()};
      moved = *changed;
    }
    if (moved == 0) {
      out.missing.push_back(id);
      continue;
    }
    STORE_STMT(q, kRemoveArchivedItem);
    STORE_TRY(q.bind_partition(part).bind_text(3, id).run());
    ++out.archived;
  }
  STORE_TRY(tx.commit());
  return out;
}

Result<std::int64_t> SqliteStore::add_archive_text(const Scope& scope, std::string_view title,
                                                   std::string_view text, std::string_view source,
                                                   TimePoint now) {
  STORE_TRY(check_scope(scope));
  if (trim(text).empty()) return Error{"sqlite store: empty archive text"};
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kAddArchive);
  q.bind_partition(memory_partition(scope)).bind_text(3, title).bind_text(4, text).bind_text(5, source);
  STORE_TRY(q.bind_time(6, now).run());
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
}

Result<std::vector<ArchiveHit>> SqliteStore::search_archive(const Scope& scope, std::string_view query,
                                                            int top_k, double min_score) {
  STORE_TRY(check_scope(scope));
  STORE_TRY(check_min_score(min_score));
  const std::string match = fts_match_query(query);
  if (top_k <= 0 || match.empty()) return std::vector<ArchiveHit>();
  Reader r = reader();
  STORE_READ_STMT(q, r, kSearchArchive);
  q.bind_partition(memory_partition(scope)).bind_text(3, match).bind_int(4, std::min(top_k, kMaxTopK));
  return collect_hits<ArchiveHit>(q, min_score, [](const Stmt& row, double score) {
    return ArchiveHit{row.integer(1), row.text(2), row.text(3), row.text(4), row.time(5), score};
  });
}

// ------------------------------------------------------------------------------------------ history

Result<std::int64_t> SqliteStore::append_message(const Scope& scope, std::string_view role,
                                                 std::string_view text, std::string_view turn_id,
                                                 TimePoint at) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kAppendMessage);
  q.bind_partition(conversation_partition(scope)).bind_text(3, role).bind_text(4, text);
  STORE_TRY(q.bind_text(5, turn_id).bind_time(6, at).run());
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
}

Result<std::vector<Message>> SqliteStore::recent_messages(const Scope& scope, std::size_t n) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kRecentMessages);
  q.bind_partition(conversation_partition(scope))
      .bind_int(3, static_cast<std::int64_t>(std::min<std::size_t>(n, INT64_MAX)));
  std::vector<Message> out;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    out.push_back(Message{q.integer(0), q.text(1), q.text(2), q.text(3), q.time(4)});
  }
  return out;
}

Result<std::vector<MessageHit>> SqliteStore::search_messages(const Scope& scope, std::string_view query,
                                                             int top_k) {
  STORE_TRY(check_scope(scope));
  const std::string match = fts_match_query(query);
  if (top_k <= 0 || match.empty()) return std::vector<MessageHit>();
  Reader r = reader();
  STORE_READ_STMT(q, r, kSearchMessages);
  q.bind_partition(conversation_partition(scope)).bind_text(3, match).bind_int(4, std::min(top_k, kMaxTopK));
  return collect_hits<MessageHit>(q, 0.0, [](const Stmt& row, double score) {
    return MessageHit{Message{row.integer(1), row.text(2), row.text(3), row.text(4), row.time(5)}, score};
  });
}

// ------------------------------------------------------------------------------------------ scheduled tasks

Result<std::string> SqliteStore::add_task(const Scope& scope, std::string_view id, std::string_view message,
                                          TimePoint due_at, TimePoint now) {
  STORE_TRY(check_scope(scope));
  if (!id.empty()) STORE_TRY(check_key("task id", id));
  if (trim(message).empty()) return Error{"sqlite store: empty task message"};
  const Partition part = conversation_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  if (options_.max_pending_tasks_per_user != 0) {
    STORE_STMT(count, "SELECT COUNT(*) FROM tasks WHERE user_id = ?1 AND fired_at IS NULL");
    count.bind_text(1, part.user);
    STORE_STEP(row, count);
    if (row && static_cast<std::size_t>(count.integer(0)) >= options_.max_pending_tasks_per_user)
      return Error{"task limit: at most " + std::to_string(options_.max_pending_tasks_per_user) +
                   " pending scheduled tasks per user; delete one first"};
  }
  // A generated id skips any the scope already uses (a caller may have chosen "task-7" itself).
  const int attempts = id.empty() ? kGeneratedIdAttempts : 1;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::string candidate(id);
    if (id.empty()) {
      auto n = next_counter("task_counter");
      if (!n) return Error{n.error()};
      candidate = "task-" + std::to_string(*n);
    }
    STORE_STMT(q, kAddTask);
    q.bind_partition(part).bind_text(3, candidate).bind_text(4, message);
    auto changed = q.bind_time(5, due_at).bind_time(6, now).run();
    if (!changed) return Error{changed.error()};
    if (*changed == 1) {
      STORE_TRY(tx.commit());
      return candidate;
    }
  }
  return Error{"sqlite store: task id '" + std::string(id) + "' is already used"};
}

Result<std::vector<ScheduledTask>> SqliteStore::list_tasks(const Scope& scope) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kListTasks);
  q.bind_partition(conversation_partition(scope));
  std::vector<ScheduledTask> out;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    out.push_back(read_task(q));
    out.back().scope.memory = scope.memory;
  }
  return out;
}

Result<std::size_t> SqliteStore::delete_task(const Scope& scope, std::string_view id) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kDeleteTask);
  return q.bind_partition(conversation_partition(scope)).bind_text(3, id).run();
}

Result<std::size_t> SqliteStore::delete_tasks_due_at(const Scope& scope, TimePoint due_at) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kDeleteTasksDueAt);
  return q.bind_partition(conversation_partition(scope)).bind_time(3, due_at).run();
}

Result<std::vector<ScheduledTask>> SqliteStore::due_tasks(TimePoint now, std::size_t limit) {
  Reader r = reader();
  STORE_READ_STMT(q, r, kDueTasks);
  q.bind_time(1, now).bind_int(2, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT64_MAX)));
  std::vector<ScheduledTask> out;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    out.push_back(read_task(q));
  }
  return out;
}

Result<bool> SqliteStore::mark_fired(const Scope& scope, std::string_view id, TimePoint at) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kMarkFired);
  auto changed = q.bind_partition(conversation_partition(scope)).bind_text(3, id).bind_time(4, at).run();
  if (!changed) return Error{changed.error()};
  return *changed == 1;
}

// ------------------------------------------------------------------------------------------ exactly once

// One exactly-once write waiting for a group commit. Filled in (begun or status) by the batch's leader.
struct SqliteStore::OnceOp {
  bool complete = false;  // once_complete, else once_begin
  const Scope* scope = nullptr;
  std::string_view key;
  std::string_view result_json;
  TimePoint now;
  std::optional<Result<Begun>> begun;
  std::optional<Status> status;
  bool done = false;  // under once_mutex_

  bool ok() const { return complete ? status->ok() : begun->ok(); }
  void fail(const Error& error) {
    if (complete)
      status.emplace(error);
    else
      begun.emplace(error);
  }
};

Result<Begun> SqliteStore::once_begin(const Scope& scope, std::string_view key, TimePoint now) {
  STORE_TRY(check_scope(scope));
  STORE_TRY(check_key("exactly-once key", key));
  if (!options_.sync_once_log) {
    std::lock_guard lock(mutex_);
    return once_begin_locked(scope, key, now);
  }
  OnceOp op;
  op.scope = &scope;
  op.key = key;
  op.now = now;
  run_once(op);
  return std::move(*op.begun);
}

Status SqliteStore::once_complete(const Scope& scope, std::string_view key, std::string_view result_json,
                                  TimePoint now) {
  STORE_TRY(check_scope(scope));
  STORE_TRY(check_key("exactly-once key", key));
  if (!options_.sync_once_log) {
    std::lock_guard lock(mutex_);
    return once_complete_locked(scope, key, result_json, now);
  }
  OnceOp op;
  op.complete = true;
  op.scope = &scope;
  op.key = key;
  op.result_json = result_json;
  op.now = now;
  run_once(op);
  return std::move(*op.status);
}

// Leader/follower group commit: the first waiting thread runs every write queued by then in one
// transaction; writes queued meanwhile wait for the next leader (one of their own threads).
void SqliteStore::run_once(OnceOp& op) {
  std::unique_lock lock(once_mutex_);
  once_pending_.push_back(&op);
  while (!op.done) {
    if (once_leader_) {
      once_cv_.wait(lock);
      continue;
    }
    once_leader_ = true;
    std::vector<OnceOp*> batch;
    batch.swap(once_pending_);
    lock.unlock();
    {
      std::lock_guard db_lock(mutex_);
      run_once_batch(batch);
    }
    lock.lock();
    for (OnceOp* o : batch) o->done = true;
    once_leader_ = false;
    once_cv_.notify_all();
  }
}

void SqliteStore::run_once_batch(const std::vector<OnceOp*>& batch) {
  auto fail_all = [&batch](const Error& error) {
    for (OnceOp* o : batch) o->fail(error);
  };
  if (auto on = full_sync(true); !on) return fail_all(Error{on.error()});
  {
    Transaction tx(db_);
    if (auto begun = tx.begin(); !begun) {
      fail_all(Error{begun.error()});
    } else {
      bool lost = false;
      for (OnceOp* o : batch) {
        if (o->complete)
          o->status.emplace(once_complete_locked(*o->scope, o->key, o->result_json, o->now));
        else
          o->begun.emplace(once_begin_locked(*o->scope, o->key, o->now));
        // An error that ended the transaction (I/O, disk full) undid the writes before it too.
        if (!o->ok() && sqlite3_get_autocommit(db_) != 0) {
          const Error error{o->complete ? o->status->error() : o->begun->error()};
          fail_all(error);
          lost = true;
          break;
        }
      }
      if (!lost) {
        if (auto committed = tx.commit(); !committed) fail_all(Error{committed.error()});
      }
    }
  }
  // As before group commit: a write whose connection could not switch back reports that error.
  if (auto off = full_sync(false); !off) {
    for (OnceOp* o : batch)
      if (o->ok()) o->fail(Error{off.error()});
  }
}

Result<Begun> SqliteStore::once_begin_locked(const Scope& scope, std::string_view key, TimePoint now) {
  const Partition part = conversation_partition(scope);
  std::size_t inserted = 0;
  {
    STORE_STMT(q, kOnceBegin);
    auto changed = q.bind_partition(part).bind_text(3, key).bind_text(4, session_).bind_time(5, now).run();
    if (!changed) return Error{changed.error()};
    inserted = *changed;
  }
  if (inserted == 1) return Begun{OnceState::fresh, {}, now};
  STORE_STMT(q, kOnceGet);
  q.bind_partition(part).bind_text(3, key);
  STORE_STEP(row, q);
  if (!row) return Error{"sqlite store: exactly-once key vanished while beginning it"};
  Begun out;
  out.begun_at = q.time(2);
  if (!q.is_null(3)) {
    out.state = OnceState::completed;
    out.result_json = q.text(1);
  } else {
    out.state = q.text(0) == session_ ? OnceState::running : OnceState::in_doubt;
  }
  return out;
}

Status SqliteStore::once_complete_locked(const Scope& scope, std::string_view key,
                                         std::string_view result_json, TimePoint now) {
  STORE_STMT(q, kOnceComplete);
  q.bind_partition(conversation_partition(scope)).bind_text(3, key).bind_text(4, session_);
  auto done = q.bind_text(5, result_json).bind_time(6, now).run();
  if (!done) {
    if (q.rc() == SQLITE_CONSTRAINT_CHECK) return Error{"sqlite store: the result is not valid JSON"};
    return Error{done.error()};
  }
  return {};
}

Result<bool> SqliteStore::once_release(const Scope& scope, std::string_view key) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kOnceRelease);
  auto changed = q.bind_partition(conversation_partition(scope)).bind_text(3, key).run();
  if (!changed) return Error{changed.error()};
  return *changed == 1;
}

Result<std::vector<InDoubt>> SqliteStore::once_in_doubt(const Scope& scope) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kOnceInDoubt);
  q.bind_partition(conversation_partition(scope)).bind_text(3, session_);
  std::vector<InDoubt> out;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    out.push_back(InDoubt{q.text(0), q.time(1)});
  }
  return out;
}

// ------------------------------------------------------------------------------------------ pages

Result<Page> SqliteStore::put_page(const Scope& scope, std::string_view title, std::string_view html,
                                   bool csp_allows_scripts, TimePoint now) {
  STORE_TRY(check_scope(scope));
  title = trim(title);
  if (trim(html).empty()) return Error{"sqlite store: empty page"};
  const Partition part = conversation_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  Sha256 h;
  hash_field(h, "sigil-page-v1");
  hash_field(h, page_salt_);
  hash_field(h, part.user);
  hash_field(h, part.conversation);
  const std::string words = slug_words(title);
  if (!title.empty()) {
    hash_field(h, "title");
    hash_field(h, title);
  } else {
    auto n = next_counter("page_counter");
    if (!n) return Error{n.error()};
    hash_field(h, "counter");
    hash_field(h, std::to_string(*n));
  }
  const std::string slug =
      (words.empty() ? std::string("page") : words) + "-" + to_hex(h.finish()).substr(0, 20);
  if (options_.max_pages_per_user != 0) {
    // Republishing a page (same slug) replaces it and is always allowed.
    STORE_STMT(count, "SELECT COUNT(*) FROM pages WHERE user_id = ?1 AND slug <> ?2");
    count.bind_text(1, part.user).bind_text(2, slug);
    STORE_STEP(row, count);
    if (row && static_cast<std::size_t>(count.integer(0)) >= options_.max_pages_per_user)
      return Error{"page limit: at most " + std::to_string(options_.max_pages_per_user) +
                   " published pages per user; delete one first"};
  }
  {
    STORE_STMT(q, kPutPage);
    q.bind_partition(part).bind_text(3, slug).bind_text(4, title).bind_text(5, html);
    auto changed = q.bind_int(6, csp_allows_scripts ? 1 : 0).bind_time(7, now).run();
    if (!changed) return Error{changed.error()};
    if (*changed != 1) return Error{"sqlite store: page slug collision"};  // owned by another scope
  }
  STORE_STMT(q, kGetPage);
  q.bind_text(1, slug);
  STORE_STEP(row, q);
  if (!row) return Error{"sqlite store: the page vanished while publishing it"};
  Page page = read_page(q);
  STORE_TRY(q.run());
  STORE_TRY(tx.commit());
  return page;
}

Result<std::optional<Page>> SqliteStore::get_page(std::string_view slug) {
  Reader r = reader();
  STORE_READ_STMT(q, r, kGetPage);
  q.bind_text(1, slug);
  STORE_STEP(row, q);
  if (!row) return std::optional<Page>();
  return std::optional<Page>(read_page(q));
}

Result<std::vector<Page>> SqliteStore::list_pages(const Scope& scope) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kListPages);
  q.bind_partition(conversation_partition(scope));
  std::vector<Page> out;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    out.push_back(read_page(q));
  }
  return out;
}

Result<bool> SqliteStore::delete_page(const Scope& scope, std::string_view slug) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kDeletePage);
  auto changed = q.bind_partition(conversation_partition(scope)).bind_text(3, slug).run();
  if (!changed) return Error{changed.error()};
  return *changed == 1;
}

Status SqliteStore::set_setting(const Scope& scope, std::string_view name, std::string_view value,
                                TimePoint now) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kSetSetting);
  auto changed = q.bind_partition(conversation_partition(scope))
                     .bind_text(3, name)
                     .bind_text(4, value)
                     .bind_time(5, now)
                     .run();
  if (!changed) return Error{changed.error()};
  return {};
}

Result<std::optional<std::string>> SqliteStore::get_setting(const Scope& scope, std::string_view name) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kGetSetting);
  q.bind_partition(conversation_partition(scope)).bind_text(3, name);
  STORE_STEP(row, q);
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(q.text(0));
}

}  // namespace sigil::store::sqlite
