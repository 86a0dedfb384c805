// SqliteStore: conversations as a whole (the web chat's list; delete). Partition: the user, or
// (user, conversation) for delete.
#include <array>
#include <string>
#include <string_view>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

// message_counts (kept by triggers) names every conversation with messages without walking them; each
// row then looks up its last and first user message through messages_scope. The preview is cut in SQL
// (substr counts characters, so no UTF-8 sequence is split) before tier_text shortens it further.
constexpr std::string_view kListConversations = R"sql(
SELECT c.conversation_id, c.messages,
    (SELECT m.at FROM messages m WHERE m.user_id = c.user_id AND m.conversation_id = c.conversation_id
     ORDER BY m.id DESC LIMIT 1) AS updated_at,
    (SELECT substr(m.text, 1, 400) FROM messages m
     WHERE m.user_id = c.user_id AND m.conversation_id = c.conversation_id AND m.role = 'user'
     ORDER BY m.id LIMIT 1),
    (SELECT s.value FROM conversation_settings s
     WHERE s.user_id = c.user_id AND s.conversation_id = c.conversation_id AND s.name = 'title')
FROM message_counts c WHERE c.user_id = ?1 AND c.messages > 0
ORDER BY updated_at DESC, c.conversation_id LIMIT ?2)sql";

// What delete_conversation empties, in this order. Deliveries go first: deleting messages first would run
// the per-message delivery trigger for each. Memory kept per user has conversation_id '' (memory_partition),
// so memory_items, facts and archive lose only what was kept for this conversation.
constexpr std::array<std::string_view, 8> kConversationTables = {
    "deliveries", "messages",     "message_counts", "conversation_settings",
    "tasks",      "memory_items", "facts",          "archive"};

// One DELETE per table, built once: the statement cache knows a statement by its text's address.
const std::array<std::string, kConversationTables.size()>& delete_statements() {
  static const auto statements = [] {
    std::array<std::string, kConversationTables.size()> sql;
    for (std::size_t i = 0; i < sql.size(); ++i)
      sql[i] = "DELETE FROM " + std::string(kConversationTables[i]) +
               " WHERE user_id = ?1 AND conversation_id = ?2";
    return sql;
  }();
  return statements;
}

}  // namespace

Result<std::vector<ConversationSummary>> SqliteStore::list_conversations(std::string_view user_id,
                                                                         std::size_t limit) {
  if (user_id.empty()) return Error{"sqlite store: list_conversations needs a user_id"};
  Reader r = reader();
  STORE_READ_STMT(q, r, kListConversations);
  q.bind_text(1, user_id).bind_size(2, limit);
  return read_rows(q, [](const Stmt& row) {
    return ConversationSummary{row.text(0), row.text(4), tier_text(row.text(3), 1),
                               static_cast<std::size_t>(row.integer(1)), row.time(2)};
  });
}

Result<bool> SqliteStore::delete_conversation(const Scope& scope) {
  STORE_TRY(check_scope(scope));
  if (scope.conversation_id.empty())
    return Error{"sqlite store: delete_conversation needs a conversation_id"};
  const Partition part = conversation_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  std::size_t deleted = 0;
  for (std::size_t i = 0; i < kConversationTables.size(); ++i) {
    auto q = prepare(delete_statements()[i]);
    if (!q) return Error{q.error()};
    auto changed = Stmt(db_, *q).bind_partition(part).run();
    if (!changed) return Error{changed.error()};
    // message_counts is bookkeeping: its rows are not what the caller deleted.
    if (kConversationTables[i] != "message_counts") deleted += *changed;
  }
  STORE_TRY(tx.commit());
  return deleted > 0;
}

}  // namespace sigil::store::sqlite
