// SqliteStore: conversation history (the agent's context). Partition: (user, conversation).
#include <sqlite3.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <span>
#include <utility>

#include "store/sqlite/recent_rows.h"
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kAppendMessage = R"sql(
INSERT INTO messages(user_id, conversation_id, role, text, turn_id, at, task_id, platform_id)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql";
// Kept by triggers (schema version 3): reading it is one lookup, where counting the rows walks them all.
constexpr std::string_view kMessageCount = R"sql(
SELECT messages FROM message_counts WHERE user_id = ?1 AND conversation_id = ?2)sql";
// The conversation's oldest ?3 messages (from the oldest end of the index messages_scope).
constexpr std::string_view kPruneMessages = R"sql(
DELETE FROM messages WHERE id IN (
    SELECT id FROM messages WHERE user_id = ?1 AND conversation_id = ?2 ORDER BY id LIMIT ?3))sql";
// Around each append of a group commit's batch (run_message_batch).
constexpr std::string_view kSavepoint = "SAVEPOINT append_message";
constexpr std::string_view kRollbackToSavepoint = "ROLLBACK TO append_message";
constexpr std::string_view kReleaseSavepoint = "RELEASE append_message";
// The full-text index's batches (schema version 11): whether any row is above the watermark (one lookup
// at each end of the rowid B-tree), the rows above it added in one statement (so FTS5 writes one segment
// for the lot), and the watermark moved to the highest id, in the same transaction.
constexpr std::string_view kAnyMessagePending = R"sql(
SELECT EXISTS (SELECT 1 FROM messages WHERE id > (SELECT up_to FROM messages_fts_indexed WHERE id = 1)))sql";
constexpr std::string_view kIndexedUpTo = "SELECT up_to FROM messages_fts_indexed WHERE id = 1";
constexpr std::string_view kIndexPending = R"sql(
INSERT INTO messages_fts(rowid, text) SELECT id, text FROM messages WHERE id > ?1)sql";
constexpr std::string_view kMoveWatermark = R"sql(
UPDATE messages_fts_indexed SET up_to = (SELECT coalesce(max(id), 0) FROM messages) WHERE id = 1)sql";
// Newest first, straight down the messages_scope index (recent_messages() turns them round): ordered
// oldest first in SQL, the rows went through a subquery's table and a sort, once per model call.
constexpr std::string_view kRecentMessages = R"sql(
SELECT id, role, text, turn_id, at, task_id, platform_id FROM messages
WHERE user_id = ?1 AND conversation_id = ?2 ORDER BY id DESC LIMIT ?3)sql";
constexpr std::string_view kHasPlatformMessage = R"sql(
SELECT 1 FROM messages WHERE user_id = ?1 AND conversation_id = ?2 AND platform_id = ?3 LIMIT 1)sql";
constexpr std::string_view kSearchMessages = R"sql(
SELECT bm25(messages_fts) AS bm25_rank, m.id, m.role, m.text, m.turn_id, m.at, m.task_id, m.platform_id
FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid
WHERE messages_fts MATCH ?3 AND m.user_id = ?1 AND m.conversation_id = ?2 AND m.role IN ('user', 'assistant')
ORDER BY bm25_rank, m.id DESC
LIMIT ?4)sql";
constexpr std::string_view kSearchUserMessages = R"sql(
SELECT bm25(messages_fts) AS bm25_rank, m.id, m.role, m.text, m.turn_id, m.at, m.task_id, m.platform_id, m.conversation_id
FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid
WHERE messages_fts MATCH ?2 AND m.user_id = ?1 AND m.role IN ('user', 'assistant')
ORDER BY bm25_rank, m.id DESC
LIMIT ?3)sql";

}  // namespace

// One history append waiting for a group commit. Filled in (id) by the batch's leader.
struct SqliteStore::MessageOp {
  const Scope* scope = nullptr;
  const Message* message = nullptr;
  std::optional<Result<std::int64_t>> id;
  bool done = false;          // under the GroupCommit's lock
  std::exception_ptr thrown;  // likewise: what the batch's run threw
};

Result<std::int64_t> SqliteStore::append_message(const Scope& scope, const Message& message) {
  STORE_TRY(check_scope(scope));
  MessageOp op{&scope, &message, std::nullopt, false, nullptr};
  MessageOp* const ops[] = {&op};
  message_commits_.commit(std::span<MessageOp* const>(ops), [this](const std::vector<MessageOp*>& batch) {
    std::lock_guard lock(mutex_);
    run_message_batch(batch);
  });
  // Indexed later, in a batch: by whichever append finds the batch full (after its own commit, so no
  // other append waits for it in its group commit), by a search, or at close or the next open.
  if (*op.id && messages_pending_.fetch_add(1, std::memory_order_relaxed) + 1 >=
                    std::max<std::size_t>(options_.history_index_batch, 1)) {
    std::lock_guard lock(mutex_);
    (void)index_pending_messages();  // the append is committed; a failure here leaves the rows pending
  }
  return std::move(*op.id);
}

Status SqliteStore::index_pending_messages() {
  messages_pending_.store(0, std::memory_order_relaxed);  // mutex_ held: no append commits meanwhile
  {
    STORE_STMT(q, kAnyMessagePending);
    STORE_STEP(row, q);
    if (!row || q.integer(0) == 0) return {};
  }
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  std::int64_t up_to = 0;
  {
    STORE_STMT(q, kIndexedUpTo);  // read again under the write lock: another process may have indexed
    STORE_STEP(row, q);
    if (!row) return Error{"sqlite store: the history index has no watermark"};
    up_to = q.integer(0);
  }
  {
    STORE_STMT(q, kIndexPending);
    STORE_TRY(q.bind_int(1, up_to).run());
  }
  {
    STORE_STMT(q, kMoveWatermark);
    STORE_TRY(q.run());
  }
  STORE_TRY(tx.commit());
  index_batches_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

Status SqliteStore::catch_up_index() {
  if (reader_ != nullptr) {
    // Asked first on the read-only connection: every append that returned is committed, so it sees them,
    // and when none is pending the search need not wait for the write lock (a write or its fsync).
    Reader r = reader();
    STORE_READ_STMT(q, r, kAnyMessagePending);
    STORE_STEP(row, q);
    if (row && q.integer(0) == 0) return {};
  }
  std::lock_guard lock(mutex_);
  index_catch_ups_.fetch_add(1, std::memory_order_relaxed);
  STORE_TRY(index_pending_messages());
  renew_reads_together();  // a snapshot taken before the batch would not see it
  return {};
}

void SqliteStore::run_message_batch(const std::vector<MessageOp*>& batch) {
  auto fail_all = [&batch](const Error& error) {
    for (MessageOp* o : batch) o->id.emplace(error);
  };
  const auto statements = begin_commit();
  if (!statements) return fail_all(Error{statements.error()});
  Transaction tx(db_, statements->first, statements->second);
  if (auto begun = tx.begin(); !begun) return fail_all(Error{begun.error()});
  if (batch.size() == 1) {  // alone: a failure rolls the transaction back, as before group commit
    MessageOp& o = *batch.front();
    o.id.emplace(append_message_locked(*o.scope, *o.message));
    if (!*o.id) return;
    if (auto committed = tx.commit(); !committed) o.id.emplace(Error{committed.error()});
    return;
  }
  for (MessageOp* o : batch) {
    // Each append in a savepoint: one that fails (its row in, its pruning not) is undone alone.
    auto step = [this](std::string_view sql) -> Status {
      STORE_STMT(q, sql);
      STORE_TRY(q.run());
      return {};
    };
    if (auto saved = step(kSavepoint); !saved) {
      o->id.emplace(Error{saved.error()});
    } else {
      o->id.emplace(append_message_locked(*o->scope, *o->message));
      if (!*o->id) (void)step(kRollbackToSavepoint);
      (void)step(kReleaseSavepoint);
    }
    // An error that ended the transaction (I/O, disk full) undid the appends before it too.
    if (!*o->id && sqlite3_get_autocommit(db_) != 0) return fail_all(Error{o->id->error()});
  }
  if (auto committed = tx.commit(); !committed) fail_all(Error{committed.error()});
}

Result<std::int64_t> SqliteStore::append_message_locked(const Scope& scope, const Message& message) {
  const Partition part = conversation_partition(scope);
  std::int64_t id = 0;
  {
    STORE_STMT(q, kAppendMessage);
    q.bind_partition(part).bind_text(3, message.role).bind_text(4, message.text);
    q.bind_text(5, message.turn_id).bind_time(6, message.at).bind_text(7, message.task_id);
    STORE_TRY(q.bind_text(8, message.platform_id).run());
    id = static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
  }
  // Beyond the cap the oldest go, in this transaction: the history never holds more than the cap.
  if (const std::size_t cap = options_.max_messages_per_conversation; cap != 0) {
    std::int64_t count = 0;
    {
      STORE_STMT(q, kMessageCount);
      q.bind_partition(part);
      STORE_STEP(row, q);
      if (row) count = q.integer(0);
    }
    if (count > 0 && static_cast<std::size_t>(count) > cap) {
      STORE_STMT(q, kPruneMessages);
      STORE_TRY(q.bind_partition(part).bind_size(3, static_cast<std::size_t>(count) - cap).run());
    }
  }
  return id;
}

Result<std::vector<Message>> SqliteStore::recent_messages(const Scope& scope, std::size_t n) {
  return recent_rows(scope, kRecentMessages, n, [](const Stmt& row) {
    return Message{row.integer(0), row.text(1), row.text(2), row.text(3),
                   row.time(4),    row.text(5), row.text(6)};
  });
}

Result<bool> SqliteStore::has_platform_message(const Scope& scope, std::string_view platform_id) {
  STORE_TRY(check_scope(scope));
  if (platform_id.empty()) return false;
  Reader r = reader();
  STORE_READ_STMT(q, r, kHasPlatformMessage);
  q.bind_partition(conversation_partition(scope)).bind_text(3, platform_id);
  STORE_STEP(row, q);
  return row;
}

Result<std::vector<MessageHit>> SqliteStore::search_messages(const Scope& scope, std::string_view query,
                                                             int top_k) {
  STORE_TRY(check_scope(scope));
  const std::string match = fts_match_query(query);
  if (top_k <= 0 || match.empty()) return std::vector<MessageHit>();
  STORE_TRY(catch_up_index());
  Reader r = reader();
  STORE_READ_STMT(q, r, kSearchMessages);
  q.bind_partition(conversation_partition(scope)).bind_text(3, match).bind_int(4, std::min(top_k, kMaxTopK));
  return collect_hits<MessageHit>(q, 0.0, [&](const Stmt& row, double score) {
    return MessageHit{
        Message{row.integer(1), row.text(2), row.text(3), row.text(4), row.time(5), row.text(6), row.text(7)},
        score, scope.conversation_id};
  });
}

Result<std::vector<MessageHit>> SqliteStore::search_user_messages(const Scope& scope, std::string_view query,
                                                                  int top_k) {
  if (scope.user_id.empty()) return Error{"sqlite store: no user"};
  const std::string match = fts_match_query(query);
  if (top_k <= 0 || match.empty()) return std::vector<MessageHit>();
  STORE_TRY(catch_up_index());
  Reader r = reader();
  STORE_READ_STMT(q, r, kSearchUserMessages);
  q.bind_text(1, scope.user_id).bind_text(2, match).bind_int(3, std::min(top_k, kMaxTopK));
  return collect_hits<MessageHit>(q, 0.0, [](const Stmt& row, double score) {
    return MessageHit{
        Message{row.integer(1), row.text(2), row.text(3), row.text(4), row.time(5), row.text(6), row.text(7)},
        score, row.text(8)};
  });
}

}  // namespace sigil::store::sqlite
