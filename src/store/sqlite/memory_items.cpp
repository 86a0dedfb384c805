// SqliteStore: memory items (setMemory, deleteItem, cleanupMemory). Partition: the memory scope.
#include <sqlite3.h>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

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
constexpr std::string_view kRecentItems = R"sql(
SELECT item_id, value_json, created_at, updated_at, expires_at FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND (expires_at IS NULL OR expires_at > ?3)
ORDER BY updated_at DESC, item_id LIMIT ?4)sql";
constexpr std::string_view kCleanupItems = R"sql(
DELETE FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND expires_at IS NOT NULL AND expires_at <= ?3)sql";

MemoryItem read_item(const Stmt& q) {
  return MemoryItem{q.text(0), q.text(1), q.time(2), q.time(3), q.opt_time(4)};
}

Result<std::vector<MemoryItem>> read_items(Stmt& q) { return read_rows(q, read_item); }

}  // namespace

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
  return read_items(q);
}

Result<std::vector<MemoryItem>> SqliteStore::recent_items(const Scope& scope, TimePoint now,
                                                          std::size_t limit) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kRecentItems);
  q.bind_partition(memory_partition(scope)).bind_time(3, now).bind_size(4, limit);
  return read_items(q);
}

Result<std::size_t> SqliteStore::cleanup_expired(const Scope& scope, TimePoint now) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kCleanupItems);
  return q.bind_partition(memory_partition(scope)).bind_time(3, now).run();
}

}  // namespace sigil::store::sqlite
