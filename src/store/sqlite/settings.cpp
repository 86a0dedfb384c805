// SqliteStore: conversation settings (say mode, spec 6.1). Partition: (user, conversation).
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kSetSetting = R"sql(
INSERT INTO conversation_settings(user_id, conversation_id, name, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT(user_id, conversation_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at)sql";
constexpr std::string_view kGetSetting = R"sql(
SELECT value FROM conversation_settings WHERE user_id = ?1 AND conversation_id = ?2 AND name = ?3)sql";

}  // namespace

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
