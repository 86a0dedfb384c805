// SqliteStore: facts (remember, forget, correct). Partition: the memory scope.
#include <optional>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kAddFact = R"sql(
INSERT INTO facts(user_id, conversation_id, text, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4))sql";
// Remembered again or corrected: it matters more (Fact).
constexpr std::string_view kReinforceFact = R"sql(
UPDATE facts SET importance = min(importance + 1, ?4), updated_at = ?5
WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3)sql";
constexpr std::string_view kListFacts = R"sql(
SELECT id, text, created_at, importance, updated_at FROM facts WHERE user_id = ?1 AND conversation_id = ?2
ORDER BY id)sql";
constexpr std::string_view kTopFacts = R"sql(
SELECT id, text, created_at, importance, updated_at FROM facts WHERE user_id = ?1 AND conversation_id = ?2
ORDER BY importance DESC, updated_at DESC, id DESC LIMIT ?3)sql";
constexpr std::string_view kCountFacts = R"sql(
SELECT count(*) FROM facts WHERE user_id = ?1 AND conversation_id = ?2)sql";
constexpr std::string_view kFindFact = R"sql(
SELECT id FROM facts WHERE user_id = ?1 AND conversation_id = ?2 AND text = ?3)sql";
constexpr std::string_view kDeleteFact = R"sql(
DELETE FROM facts WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3)sql";
constexpr std::string_view kUpdateFact = R"sql(
UPDATE facts SET text = ?4 WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3)sql";

// Rows of kListFacts / kTopFacts.
Result<std::vector<Fact>> read_facts(Stmt& q) {
  return read_rows(q, [](const Stmt& row) {
    return Fact{row.integer(0), row.text(1), row.time(2), static_cast<int>(row.integer(3)), row.time(4)};
  });
}

}  // namespace

Result<bool> SqliteStore::remember(const Scope& scope, std::string_view fact, TimePoint now) {
  STORE_TRY(check_scope(scope));
  fact = trim(fact);
  if (fact.empty()) return Error{"sqlite store: empty fact"};
  const Partition part = memory_partition(scope);
  std::lock_guard lock(mutex_);
  std::optional<std::int64_t> existing;
  {
    STORE_STMT(q, kFindFact);
    q.bind_partition(part).bind_text(3, fact);
    STORE_STEP(row, q);
    if (row) existing = q.integer(0);
  }
  if (existing) {
    STORE_STMT(q, kReinforceFact);
    STORE_TRY(q.bind_partition(part)
                  .bind_int(3, *existing)
                  .bind_int(4, kMaxFactImportance)
                  .bind_time(5, now)
                  .run());
    return false;
  }
  STORE_STMT(q, kAddFact);
  STORE_TRY(q.bind_partition(part).bind_text(3, fact).bind_time(4, now).run());
  return true;
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
    if (text::ascii::icontains(q.text(1), fact)) ids.push_back(q.integer(0));
  }
  return ids;
}

}  // namespace

template <class T, class Change>
Result<T> SqliteStore::change_named_facts(const Scope& scope, std::string_view fact, Change&& change) {
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
  return change(tx, part, *ids);
}

Result<std::size_t> SqliteStore::forget(const Scope& scope, std::string_view fact) {
  return change_named_facts<std::size_t>(
      scope, fact,
      [this](Transaction& tx, Partition part, const std::vector<std::int64_t>& ids) -> Result<std::size_t> {
        for (const std::int64_t id : ids) {
          STORE_STMT(q, kDeleteFact);
          STORE_TRY(q.bind_partition(part).bind_int(3, id).run());
        }
        STORE_TRY(tx.commit());
        return ids.size();
      });
}

Result<Correction> SqliteStore::correct(const Scope& scope, std::string_view old_fact,
                                        std::string_view new_fact, TimePoint now) {
  new_fact = trim(new_fact);
  // An empty new fact is refused as an empty old one is: after an invalid scope, before anything is read.
  if (new_fact.empty() && check_scope(scope)) return Error{"sqlite store: empty fact"};
  return change_named_facts<Correction>(
      scope, old_fact,
      [&](Transaction& tx, Partition part, const std::vector<std::int64_t>& ids) -> Result<Correction> {
        if (ids.empty()) return Correction{};
        if (ids.size() > 1)
          return Error{"sqlite store: " + std::to_string(ids.size()) + " facts contain '" +
                       std::string(trim(old_fact)) + "': say which one"};
        const std::int64_t id = ids.front();
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
        {
          // Facts keep their first created_at through corrections; a correction is a fact said again.
          STORE_STMT(q, kReinforceFact);
          STORE_TRY(q.bind_partition(part)
                        .bind_int(3, existing.value_or(id))
                        .bind_int(4, kMaxFactImportance)
                        .bind_time(5, now)
                        .run());
        }
        STORE_TRY(tx.commit());
        return out;
      });
}

Result<std::vector<Fact>> SqliteStore::list_facts(const Scope& scope) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kListFacts);
  q.bind_partition(memory_partition(scope));
  return read_facts(q);
}

Result<RankedFacts> SqliteStore::top_facts(const Scope& scope, std::size_t limit) {
  STORE_TRY(check_scope(scope));
  const Partition part = memory_partition(scope);
  Reader r = reader();
  RankedFacts out;
  {
    STORE_READ_STMT(q, r, kCountFacts);
    q.bind_partition(part);
    STORE_STEP(row, q);
    if (row) out.total = static_cast<std::size_t>(q.integer(0));
  }
  if (limit == 0 || out.total == 0) return out;
  STORE_READ_STMT(q, r, kTopFacts);
  q.bind_partition(part).bind_size(3, limit);
  auto facts = read_facts(q);
  if (!facts) return Error{facts.error()};
  out.facts = std::move(*facts);
  return out;
}

}  // namespace sigil::store::sqlite
