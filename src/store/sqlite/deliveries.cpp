// SqliteStore: what turns delivered besides text, kept with the history. Partition: (user, conversation).
#include <sqlite3.h>

#include "store/sqlite/recent_rows.h"
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kAppendDelivery = R"sql(
INSERT INTO deliveries(user_id, conversation_id, turn_id, json, at) VALUES (?1, ?2, ?3, ?4, ?5))sql";
constexpr std::string_view kRecentDeliveries = R"sql(
SELECT id, turn_id, json, at FROM deliveries
WHERE user_id = ?1 AND conversation_id = ?2 ORDER BY id DESC LIMIT ?3)sql";

}  // namespace

Result<std::int64_t> SqliteStore::append_delivery(const Scope& scope, std::string_view turn_id,
                                                  std::string_view json, TimePoint at) {
  STORE_TRY(check_scope(scope));
  const Partition part = conversation_partition(scope);
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kAppendDelivery);
  q.bind_partition(part).bind_text(3, turn_id).bind_text(4, json);
  STORE_TRY(q.bind_time(5, at).run());
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
}

Result<std::vector<StoredDelivery>> SqliteStore::recent_deliveries(const Scope& scope, std::size_t n) {
  return recent_rows(scope, kRecentDeliveries, n, [](const Stmt& row) {
    return StoredDelivery{row.integer(0), row.text(1), row.text(2), row.time(3)};
  });
}

}  // namespace sigil::store::sqlite
