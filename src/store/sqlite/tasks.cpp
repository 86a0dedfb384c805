// SqliteStore: scheduled tasks (scheduleTask, getScheduledTasks, deleteScheduledTask, the scheduler).
// Partition: (user, conversation); due_tasks() spans every scope.
#include <algorithm>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

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

constexpr int kGeneratedIdAttempts = 16;

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

}  // namespace

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
                   " pending scheduled tasks per user; delete one with deleteScheduledTask first"};
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
  return read_rows(q, [&scope](const Stmt& row) {
    ScheduledTask task = read_task(row);
    task.scope.memory = scope.memory;
    return task;
  });
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
  q.bind_time(1, now).bind_size(2, limit);
  return read_rows(q, read_task);
}

Result<bool> SqliteStore::mark_fired(const Scope& scope, std::string_view id, TimePoint at) {
  STORE_TRY(check_scope(scope));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kMarkFired);
  auto changed = q.bind_partition(conversation_partition(scope)).bind_text(3, id).bind_time(4, at).run();
  if (!changed) return Error{changed.error()};
  return *changed == 1;
}

}  // namespace sigil::store::sqlite
