// SqliteStore: the archive (archiveItems, searchArchive, SEARCH_EPISODIC). Partition: the memory scope.
#include <sqlite3.h>

#include <algorithm>
#include <unordered_set>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kArchiveItem = R"sql(
INSERT INTO archive(user_id, conversation_id, title, body, source, created_at)
SELECT user_id, conversation_id, item_id,
       CASE json_type(value_json) WHEN 'text' THEN json_extract(value_json, '$') ELSE value_json END,
       'memory', ?4
FROM memory_items
WHERE user_id = ?1 AND conversation_id = ?2 AND item_id = ?3 AND (expires_at IS NULL OR expires_at > ?4)
RETURNING id, body)sql";
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

Status check_min_score(double min_score) {
  if (!(min_score >= 0.0 && min_score <= 1.0)) return Error{"sqlite store: min_score must be in [0, 1]"};
  return {};
}

}  // namespace

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
    {
      STORE_STMT(q, kArchiveItem);
      q.bind_partition(part).bind_text(3, id).bind_time(4, now);
      STORE_STEP(row, q);
      if (!row) {
        out.missing.push_back(id);
        continue;
      }
      out.entries.push_back(ArchivedText{q.integer(0), q.text(1)});
      STORE_STEP(more, q);  // RETURNING: the statement ends on the next step
      (void)more;
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

}  // namespace sigil::store::sqlite
