// SqliteStore: the exactly-once log (spec 12.4), with group commit. Partition: (user, conversation).
#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <optional>
#include <utility>

#include "sigil/text/json_string.h"
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kOnceBegin = R"sql(
INSERT INTO once_log(user_id, conversation_id, key, session, begun_at) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (user_id, conversation_id, key) DO NOTHING)sql";
constexpr std::string_view kOnceGet = R"sql(
SELECT session, result_json, begun_at, completed_at FROM once_log
WHERE user_id = ?1 AND conversation_id = ?2 AND key = ?3)sql";
// The usual case, a key this process began: one seek by primary key, cheaper than the upsert below.
constexpr std::string_view kOnceCompleteBegun = R"sql(
UPDATE once_log SET result_json = ?4, completed_at = ?5
WHERE user_id = ?1 AND conversation_id = ?2 AND key = ?3 AND completed_at IS NULL)sql";
constexpr std::string_view kOnceComplete = R"sql(
INSERT INTO once_log(user_id, conversation_id, key, session, result_json, begun_at, completed_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
ON CONFLICT (user_id, conversation_id, key) DO UPDATE SET
    result_json = excluded.result_json, completed_at = excluded.completed_at
WHERE once_log.completed_at IS NULL)sql";

}  // namespace

// One exactly-once write waiting for a group commit. Filled in (begun or status) by the batch's leader.
struct SqliteStore::OnceOp {
  bool complete = false;  // once_complete, else once_begin
  const Scope* scope = nullptr;
  std::string_view key;
  std::string_view result_json;
  TimePoint now;
  std::optional<Result<Begun>> begun;
  std::optional<Status> status;
  bool done = false;          // under the GroupCommit's lock
  std::exception_ptr thrown;  // likewise: what the batch's run threw

  bool ok() const { return complete ? status->ok() : begun->ok(); }
  void fail(const Error& error) {
    if (complete)
      status.emplace(error);
    else
      begun.emplace(error);
  }
};

Result<Begun> SqliteStore::once_begin(const Scope& scope, std::string_view key, TimePoint now) {
  const std::string keys[] = {std::string(key)};
  return std::move(once_begin_many(scope, keys, now).front());
}

Status SqliteStore::once_complete(const Scope& scope, std::string_view key, std::string_view result_json,
                                  TimePoint now) {
  const OnceCompletion done[] = {{key, result_json}};
  return std::move(once_complete_many(scope, done, now).front());
}

std::vector<Result<Begun>> SqliteStore::once_begin_many(const Scope& scope, std::span<const std::string> keys,
                                                        TimePoint now) {
  std::vector<OnceOp> ops(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ops[i].scope = &scope;
    ops[i].key = keys[i];
    ops[i].now = now;
  }
  run_once(ops, scope);
  std::vector<Result<Begun>> out;
  out.reserve(ops.size());
  for (OnceOp& op : ops) out.push_back(std::move(*op.begun));
  return out;
}

std::vector<Status> SqliteStore::once_complete_many(const Scope& scope, std::span<const OnceCompletion> done,
                                                    TimePoint now) {
  std::vector<OnceOp> ops(done.size());
  for (std::size_t i = 0; i < done.size(); ++i) {
    ops[i].complete = true;
    ops[i].scope = &scope;
    ops[i].key = done[i].key;
    ops[i].result_json = done[i].result_json;
    ops[i].now = now;
  }
  run_once(ops, scope);
  std::vector<Status> out;
  out.reserve(ops.size());
  for (OnceOp& op : ops) out.push_back(std::move(*op.status));
  return out;
}

bool SqliteStore::once_writes_wait_for_disk() const { return options_.sync_once_log; }

// Checks every op, then writes the valid ones: in memory (or without sync_once_log) in one transaction of
// their own, else in the next group commit.
void SqliteStore::run_once(std::span<OnceOp> ops, const Scope& scope) {
  std::vector<OnceOp*> valid;
  valid.reserve(ops.size());
  const Status scope_ok = check_scope(scope);
  for (OnceOp& op : ops) {
    if (!scope_ok) {
      op.fail(Error{scope_ok.error()});
    } else if (auto key_ok = check_key("exactly-once key", op.key); !key_ok) {
      op.fail(Error{key_ok.error()});
    } else {
      valid.push_back(&op);
    }
  }
  if (valid.empty()) return;
  if (!options_.sync_once_log) {
    std::lock_guard lock(mutex_);
    if (in_memory_) return run_once_in_memory(valid);
    if (valid.size() > 1) return run_once_batch(valid);
    OnceOp& o = *valid.front();  // one statement commits on its own
    if (o.complete)
      o.status.emplace(once_complete_locked(scope, o.key, o.result_json, o.now));
    else
      o.begun.emplace(once_begin_locked(scope, o.key, o.now));
    return;
  }
  group_commit(valid);
}

// The next group commit (group_commit.h) with whatever other threads wait to write then.
void SqliteStore::group_commit(const std::vector<OnceOp*>& ops) {
  once_commits_.commit(std::span<OnceOp* const>(ops), [this](const std::vector<OnceOp*>& batch) {
    std::lock_guard db_lock(mutex_);
    run_once_batch(batch);
  });
}

void SqliteStore::run_once_batch(const std::vector<OnceOp*>& batch) {
  auto fail_all = [&batch](const Error& error) {
    for (OnceOp* o : batch) o->fail(error);
  };
  const auto statements = begin_commit();
  if (!statements) return fail_all(Error{statements.error()});
  if (auto on = full_sync(true); !on) return fail_all(Error{on.error()});
  {
    Transaction tx(db_, statements->first, statements->second);
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

const std::string& SqliteStore::memory_once_key(const OnceOp& op) {
  // Length-prefixed, so no two partitions and keys share one.
  const Partition part = conversation_partition(*op.scope);
  std::string& k = memory_once_scratch_;
  k.clear();
  for (std::string_view field : {part.user, part.conversation}) {
    char length[24];
    const auto end = std::to_chars(length, length + sizeof length, field.size()).ptr;
    k.append(length, end).push_back(':');
    k.append(field);
  }
  k.append(op.key);
  return k;
}

void SqliteStore::run_once_in_memory(const std::vector<OnceOp*>& ops) {
  for (OnceOp* o : ops) {
    const std::string& key = memory_once_key(*o);
    if (!o->complete) {
      const auto [it, inserted] = memory_once_.try_emplace(key, MemoryOnce{{}, o->now, false});
      if (inserted) {
        o->begun.emplace(Begun{OnceState::fresh, {}, o->now});
      } else if (it->second.completed) {
        o->begun.emplace(Begun{OnceState::completed, it->second.result_json, it->second.begun_at});
      } else {
        o->begun.emplace(Begun{OnceState::running, {}, it->second.begun_at});
      }
      continue;
    }
    if (!text::is_json(o->result_json)) {
      o->status.emplace(Error{"sqlite store: the result is not valid JSON"});
      continue;
    }
    auto it = memory_once_.find(key);
    if (it == memory_once_.end()) {  // never begun: recorded as completed now
      memory_once_.try_emplace(key, MemoryOnce{std::string(o->result_json), o->now, true});
    } else if (!it->second.completed) {  // else completed already: the first result stays
      it->second.result_json.assign(o->result_json);
      it->second.completed = true;
    }
    o->status.emplace();
  }
}

Result<Begun> SqliteStore::once_begin_locked(const Scope& scope, std::string_view key, TimePoint now) {
  const Partition part = conversation_partition(scope);
  std::size_t inserted = 0;
  {
    STORE_STMT(q, kOnceBegin);
    auto changed =
        q.bind_partition_view(part).bind_view(3, key).bind_view(4, session_).bind_time(5, now).run();
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
  const Partition part = conversation_partition(scope);
  {
    STORE_STMT(q, kOnceCompleteBegun);
    auto updated =
        q.bind_partition_view(part).bind_view(3, key).bind_view(4, result_json).bind_time(5, now).run();
    if (!updated) {
      if (q.rc() == SQLITE_CONSTRAINT_CHECK) return Error{"sqlite store: the result is not valid JSON"};
      return Error{updated.error()};
    }
    if (*updated == 1) return {};
  }
  // Never begun (recorded as completed now) or completed already (the first result stays).
  STORE_STMT(q, kOnceComplete);
  q.bind_partition(part).bind_text(3, key).bind_text(4, session_);
  auto done = q.bind_text(5, result_json).bind_time(6, now).run();
  if (!done) {
    if (q.rc() == SQLITE_CONSTRAINT_CHECK) return Error{"sqlite store: the result is not valid JSON"};
    return Error{done.error()};
  }
  return {};
}

}  // namespace sigil::store::sqlite
