// SqliteStore: conversations as a whole (the web chat's list; delete). Partition: the user, or
// (user, conversation) for delete.
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

// Deliveries go first: deleting messages first would run the per-message delivery trigger for each.
constexpr std::string_view kDeleteDeliveries = R"sql(
DELETE FROM deliveries WHERE user_id = ?1 AND conversation_id = ?2)sql";
constexpr std::string_view kDeleteMessages = R"sql(
DELETE FROM messages WHERE user_id = ?1 AND conversation_id = ?2)sql";
constexpr std::string_view kDeleteMessageCount = R"sql(
DELETE FROM message_counts WHERE user_id = ?1 AND conversation_id = ?2)sql";
constexpr std::string_view kDeleteSettings = R"sql(
DELETE FROM conversation_settings WHERE user_id = ?1 AND conversation_id = ?2)sql";
constexpr std::string_view kDeleteTasks = R"sql(
DELETE FROM tasks WHERE user_id = ?1 AND conversation_id = ?2)sql";
// Memory kept per user has conversation_id '' (memory_partition), so these touch only memory that was
// kept for this conversation.
constexpr std::string_view kDeleteItems = R"sql(
DELETE FROM memory_items WHERE user_id = ?1 AND conversation_id = ?2)sql";
constexpr std::string_view kDeleteFacts = R"sql(
DELETE FROM facts WHERE user_id = ?1 AND conversation_id = ?2)sql";
constexpr std::string_view kDeleteArchive = R"sql(
DELETE FROM archive WHERE user_id = ?1 AND conversation_id = ?2)sql";

}  // namespace

Result<std::vector<ConversationSummary>> SqliteStore::list_conversations(std::string_view user_id,
                                                                         std::size_t limit) {
  if (user_id.empty()) return Error{"sqlite store: list_conversations needs a user_id"};
  Reader r = reader();
  STORE_READ_STMT(q, r, kListConversations);
  q.bind_text(1, user_id).bind_size(2, limit);
  std::vector<ConversationSummary> out;
  for (;;) {
    STORE_STEP(row, q);
    if (!row) break;
    out.push_back(ConversationSummary{q.text(0), q.text(4), tier_text(q.text(3), 1),
                                      static_cast<std::size_t>(q.integer(1)), q.time(2)});
  }
  return out;
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
  for (std::string_view sql : {kDeleteDeliveries, kDeleteMessages, kDeleteMessageCount, kDeleteSettings,
                               kDeleteTasks, kDeleteItems, kDeleteFacts, kDeleteArchive}) {
    auto q = prepare(sql);
    if (!q) return Error{q.error()};
    auto changed = Stmt(db_, *q).bind_partition(part).run();
    if (!changed) return Error{changed.error()};
    if (sql != kDeleteMessageCount) deleted += *changed;
  }
  STORE_TRY(tx.commit());
  return deleted > 0;
}

}  // namespace sigil::store::sqlite
