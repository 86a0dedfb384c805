// The embedded Store: one SQLite database file (WAL), the C API directly. Private to src/store/sqlite/:
// everyone else opens it through sigil/store/sqlite.h (open.cpp). Its calls are defined one table family per
// file (memory_items.cpp, facts.cpp, archive.cpp, messages.cpp, tasks.cpp, once_log.cpp, pages.cpp,
// settings.cpp, conversations.cpp); opening and the connections in sqlite_store.cpp, the checks of an
// existing file at open in integrity.cpp, the migrations in schema.cpp; what they share (statements,
// transactions, partitions) in statement.h.
//
// Connection settings: journal_mode=WAL (other processes may read while we write), synchronous=NORMAL
// (a commit survives a crash of the process; the last commits may roll back on power loss), foreign keys
// on, a busy timeout for other processes holding the write lock. Exactly-once log writes are the
// exception: by default they commit with synchronous=FULL, so a recorded begin or completion also
// survives power loss (OpenOptions::sync_once_log).
//
// Schema: versioned migrations (schema_version table, one row). Each migration is a list of SQL statements
// applied in its own transaction together with the version bump, so a database is always at exactly one
// version. A database whose version is newer than this build knows is refused, never touched.
//
// Isolation by construction: every table holding user data has user_id and conversation_id columns, and
// every query that reads or changes such data binds both (?1, ?2) from the Scope.
//
// Thread-safety: writes share one connection guarded by a mutex; every writing call locks it for its whole
// duration, so writes from several threads are serialised (SQLite work is short; handlers do their slow work
// outside the store). Reads (get, list, search, recent messages, due tasks, pages) run on a
// second, read-only connection with its own mutex: in WAL mode they read the last committed state and never
// wait for a write or its fsync (a read started after a write returned sees it). In memory there is one
// connection for both. Prepared statements are cached per connection. Reads a thread makes together
// (begin_reads/end_reads, a model call's say mode, memory and history) share one read transaction: each
// read transaction takes and drops shared-memory locks (three fcntl calls), and after any commit of the
// writer it starts with an empty page cache, so one snapshot for the lot also reads shared pages once.
//
// Group commit: with sync_once_log, exactly-once log writes (once_begin, once_complete and their _many
// forms) that wait at the same time are written in one transaction with one fsync; a _many call's keys
// always share one. Each call still returns only once its own writes are committed with
// synchronous=FULL, so the durability promise is the same as one commit per key. Without sync_once_log a
// _many call is one transaction too; in memory (":memory:") the log is not a table at all but a map under
// the write mutex (memory_once_ below), which answers as the table would.
//
// History appends (append_message) that wait at the same time share one transaction too (group_commit.h),
// each in a savepoint of its own, so one that fails is undone alone and the others are kept; each call
// returns only once the transaction holding its message is committed, with synchronous=NORMAL as before.
// A turn's history writes are the gateway's most frequent store work; a batch writes the pages its appends
// share (the commit's WAL frames) once.
//
// The history's full-text index (messages_fts) is written in batches, off the append's path: an append
// writes its row only, and messages_fts_indexed.up_to (schema version 11) is the highest id the index
// holds. index_pending_messages adds every row above it in one statement and moves it, in one transaction,
// so the index and the watermark never disagree. It runs when OpenOptions::history_index_batch appends of
// this instance are pending (in the append that finds the batch full, after its commit), at open (rows a
// killed process left pending), at close, and before every search: search_messages and
// search_user_messages first take the write lock and index what is pending, so a search sees every
// message whose append returned before it began, written by this process or another (the read-only
// connection cannot write; a search waits for a write in progress, as a write would). A search asks the
// read-only connection first: when it sees nothing pending, the search takes no write lock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sigil/store/sqlite.h"
#include "sigil/store/store.h"
#include "store/sqlite/group_commit.h"

struct sqlite3;
struct sqlite3_stmt;

namespace sigil::store::sqlite {

class Stmt;

class SqliteStore final : public Store {
 public:
  // Opens (creating if needed) and migrates the database at `path`; ":memory:" for a private in-memory
  // database (no WAL there).
  static Result<std::unique_ptr<Store>> open(const std::string& path, const OpenOptions& options = {});
  // The schema version this build creates and reads.
  static int latest_schema_version() noexcept;
  // How schema versions 1 to 10 indexed the history (a trigger for each append, delete and update), as
  // migration 1 created it: for tests that make a database of an earlier version.
  static std::string_view per_row_history_index() noexcept;

  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  Status set_item(const Scope& scope, std::string_view item_id, std::string_view value_json,
                  std::optional<TimePoint> expires_at, TimePoint now) override;
  Result<std::optional<MemoryItem>> get_item(const Scope& scope, std::string_view item_id,
                                             TimePoint now) override;
  Result<bool> delete_item(const Scope& scope, std::string_view item_id, TimePoint now) override;
  Result<std::vector<MemoryItem>> list_items(const Scope& scope, TimePoint now) override;
  Result<std::vector<MemoryItem>> recent_items(const Scope& scope, TimePoint now, std::size_t limit) override;
  Result<std::size_t> cleanup_expired(const Scope& scope, TimePoint now) override;

  Result<bool> remember(const Scope& scope, std::string_view fact, TimePoint now) override;
  Result<std::size_t> forget(const Scope& scope, std::string_view fact) override;
  Result<Correction> correct(const Scope& scope, std::string_view old_fact, std::string_view new_fact,
                             TimePoint now) override;
  Result<std::vector<Fact>> list_facts(const Scope& scope) override;
  Result<RankedFacts> top_facts(const Scope& scope, std::size_t limit) override;

  Result<ArchiveOutcome> archive_items(const Scope& scope, std::span<const std::string> item_ids,
                                       TimePoint now) override;
  Result<std::int64_t> add_archive_text(const Scope& scope, std::string_view title, std::string_view text,
                                        std::string_view source, TimePoint now) override;
  Result<std::vector<ArchiveHit>> search_archive(const Scope& scope, std::string_view query, int top_k,
                                                 double min_score) override;
  Status set_archive_vector(const Scope& scope, std::int64_t archive_id, std::string_view model,
                            std::span<const float> vector) override;
  Result<std::vector<ArchiveHit>> nearest_archive(const Scope& scope, std::string_view model,
                                                  std::span<const float> query, int top_k) override;

  using Store::append_message;
  Result<std::int64_t> append_message(const Scope& scope, const Message& message) override;
  Result<std::vector<Message>> recent_messages(const Scope& scope, std::size_t n) override;
  Result<bool> has_platform_message(const Scope& scope, std::string_view platform_id) override;
  Result<std::int64_t> append_delivery(const Scope& scope, std::string_view turn_id, std::string_view json,
                                       TimePoint at) override;
  Result<std::vector<StoredDelivery>> recent_deliveries(const Scope& scope, std::size_t n) override;
  Result<std::vector<MessageHit>> search_messages(const Scope& scope, std::string_view query,
                                                  int top_k) override;
  Result<std::vector<MessageHit>> search_user_messages(const Scope& scope, std::string_view query,
                                                       int top_k) override;

  Result<std::string> add_task(const Scope& scope, std::string_view id, std::string_view message,
                               TimePoint due_at, TimePoint now) override;
  Result<std::vector<ScheduledTask>> list_tasks(const Scope& scope) override;
  Result<std::size_t> delete_task(const Scope& scope, std::string_view id) override;
  Result<std::size_t> delete_tasks_due_at(const Scope& scope, TimePoint due_at) override;
  Result<std::vector<ScheduledTask>> due_tasks(TimePoint now, std::size_t limit) override;
  Result<bool> mark_fired(const Scope& scope, std::string_view id, TimePoint at) override;

  Result<Begun> once_begin(const Scope& scope, std::string_view key, TimePoint now) override;
  Status once_complete(const Scope& scope, std::string_view key, std::string_view result_json,
                       TimePoint now) override;
  std::vector<Result<Begun>> once_begin_many(const Scope& scope, std::span<const std::string> keys,
                                             TimePoint now) override;
  std::vector<Status> once_complete_many(const Scope& scope, std::span<const OnceCompletion> done,
                                         TimePoint now) override;
  bool once_writes_wait_for_disk() const override;

  // Transactions committed on the write connection so far, and the batches of history appends among them
  // (what a test counts: N appends waiting together cost one commit, not N).
  std::uint64_t commits() const noexcept { return commits_.load(); }
  std::uint64_t message_batches() const { return message_commits_.batches(); }
  // History appends waiting for a group commit's leader now.
  std::size_t queued_messages() const { return message_commits_.queued(); }
  // Transactions that indexed pending history rows (what a test counts: N appends, one index batch).
  std::uint64_t index_batches() const noexcept { return index_batches_.load(std::memory_order_relaxed); }
  // Searches that took the write lock to index what was pending (none when the read-only connection saw
  // nothing pending).
  std::uint64_t index_catch_ups() const noexcept { return index_catch_ups_.load(std::memory_order_relaxed); }

  Result<Page> put_page(const Scope& scope, std::string_view title, std::string_view html,
                        bool csp_allows_scripts, TimePoint now) override;
  Result<std::optional<Page>> get_page(std::string_view slug) override;
  Result<std::vector<Page>> list_pages(const Scope& scope) override;
  Status set_setting(const Scope& scope, std::string_view name, std::string_view value,
                     TimePoint now) override;
  Result<std::optional<std::string>> get_setting(const Scope& scope, std::string_view name) override;
  Result<std::vector<ConversationSummary>> list_conversations(std::string_view user_id,
                                                              std::size_t limit) override;
  Result<bool> delete_conversation(const Scope& scope) override;
  Result<bool> record_inbound(const InboundRecord& record) override;
  Status finish_inbound(std::string_view channel, std::string_view account, std::string_view key,
                        TimePoint now) override;
  Result<std::vector<InboundRecord>> pending_inbound(std::string_view channel, std::string_view account,
                                                     std::size_t limit) override;
  // One read transaction on the read-only connection for the reads in between, which hold its lock (other
  // threads' reads wait meanwhile); a search that indexes pending rows first starts a fresh one, so it
  // still sees them. In memory, nothing (one connection, under the write lock).
  void begin_reads() override;
  void end_reads() noexcept override;
  // Read transactions begun on the read-only connection: one per read outside begin_reads/end_reads, one
  // per outermost begin_reads (what a test counts: a turn's reads together cost one).
  std::uint64_t read_transactions() const noexcept {
    return read_transactions_.load(std::memory_order_relaxed);
  }

 private:
  // Keyed by the SQL text, hashed by its address: every statement is a string literal, so a lookup hashes
  // a pointer instead of a few hundred bytes of SQL, and confirms the hit by comparing the text. (The same
  // text at two addresses is two cached statements, which is harmless.)
  struct SqlAddressHash {
    std::size_t operator()(std::string_view sql) const noexcept {
      return std::hash<const void*>{}(sql.data()) ^ sql.size();
    }
  };
  using StatementCache = std::unordered_map<std::string_view, sqlite3_stmt*, SqlAddressHash>;
  // A connection to read with, locked for as long as this lives.
  struct Reader {
    std::unique_lock<std::mutex> lock;
    sqlite3* db;
    StatementCache* statements;
  };
  struct OnceOp;
  struct MessageOp;

  SqliteStore(sqlite3* db, const OpenOptions& options, std::string session);

  Status configure(bool in_memory);
  // integrity.cpp: an existing file that holds no database, or that PRAGMA quick_check finds damaged.
  static Status refuse_empty_file(const std::string& path);
  Status check_integrity(const std::string& path);
  Status migrate(const std::string& path);
  Status load_page_salt();
  // The cached prepared statement for `sql`, which must be a string literal: the cache keys on its text
  // without copying it.
  Result<sqlite3_stmt*> prepare(std::string_view sql);
  static Result<sqlite3_stmt*> prepare_on(sqlite3* db, StatementCache& cache, std::string_view sql);
  // `sql` (a literal without results: BEGIN, COMMIT) run as `cache`'s prepared statement on `db`: the
  // transactions of every turn (history appends, the exactly-once log, a model call's reads) begin and end
  // this way, since sqlite3_exec compiles its SQL again at each call (about 11,000 instructions).
  static bool run_cached(sqlite3* db, StatementCache& cache, std::string_view sql);
  // The write connection's cached "BEGIN IMMEDIATE" and "COMMIT", for a Transaction on a turn's path.
  Result<std::pair<sqlite3_stmt*, sqlite3_stmt*>> begin_commit();
  Status open_reader(const std::string& path);
  // The read-only connection (the write one in memory), locked for this read; inside begin_reads on this
  // thread, the snapshot already open (its lock held by together_lock_).
  Reader reader();
  bool reading_together() const noexcept;
  // Inside begin_reads: ends the snapshot and begins another, so the next read sees the latest commits.
  void renew_reads_together();
  // mutex_ held. The exactly-once writes themselves, in whatever transaction is open.
  Result<Begun> once_begin_locked(const Scope& scope, std::string_view key, TimePoint now);
  Status once_complete_locked(const Scope& scope, std::string_view key, std::string_view result_json,
                              TimePoint now);
  // Writes `ops` in one transaction: with sync_once_log in the next group commit, with whatever other
  // threads wait to write then; returns when every op is done (filled in, failures included).
  void run_once(std::span<OnceOp> ops, const Scope& scope);
  void group_commit(const std::vector<OnceOp*>& ops);
  void run_once_batch(const std::vector<OnceOp*>& batch);  // mutex_ held
  // messages.cpp, mutex_ held: one append (the row, then the cap's pruning) in whatever transaction is
  // open, and a batch of them in one transaction, each in its own savepoint.
  Result<std::int64_t> append_message_locked(const Scope& scope, const Message& message);
  void run_message_batch(const std::vector<MessageOp*>& batch);
  // messages.cpp: the history rows above the watermark into the full-text index, in one transaction of
  // their own (mutex_ held; none open); catch_up_index takes mutex_ for it.
  Status index_pending_messages();
  Status catch_up_index();
  Status exec(const char* sql);
  // facts.cpp, what forget and correct start with: `fact` trimmed (an invalid scope or an empty fact
  // refused), then under mutex_ in a begun transaction (change's to commit), change(tx, partition, ids) with
  // the ids of the stored facts it names.
  template <class T, class Change>
  Result<T> change_named_facts(const Scope& scope, std::string_view fact, Change&& change);
  // recent_rows.h, for recent_messages and recent_deliveries: the rows `sql` reads (newest first) on the read
  // connection for the conversation `scope` (?1, ?2) with the limit `n` (?3), each made by read(row) (a
  // const Stmt&), returned oldest first.
  template <class Read>
  auto recent_rows(const Scope& scope, std::string_view sql, std::size_t n, Read&& read)
      -> Result<std::vector<std::invoke_result_t<Read&, const Stmt&>>>;
  // Bumps a named counter in the meta table (inside the caller's transaction) and returns its new value.
  Result<std::int64_t> next_counter(std::string_view name);
  // synchronous=FULL around exactly-once log writes, when sync_once_log is on.
  Status full_sync(bool on);

  std::mutex mutex_;
  sqlite3* db_ = nullptr;
  OpenOptions options_;
  std::string session_;    // random per instance: tells this instance's running keys from in-doubt ones
  std::string page_salt_;  // random per database
  StatementCache statements_;

  std::mutex reader_mutex_;
  sqlite3* reader_ = nullptr;  // nullptr in memory: reads use db_
  StatementCache reader_statements_;
  // begin_reads: the thread reading together holds reader_mutex_ here, reader_ in a read transaction.
  std::unique_lock<std::mutex> together_lock_;
  int together_depth_ = 0;  // nesting of the holder's begin_reads
  std::atomic<std::uint64_t> read_transactions_{0};

  // In memory (":memory:") the exactly-once log is this map, not the once_log table (once_log.cpp): nothing
  // in memory outlives the process, so the table's B-tree would buy no durability, only about 45,000
  // instructions per directive. Same answers as the table: fresh, running (this instance is the only one
  // that can have begun a key), completed with the first result kept; results must be JSON.
  struct MemoryOnce {
    std::string result_json;
    TimePoint begun_at;
    bool completed = false;
  };
  void run_once_in_memory(const std::vector<OnceOp*>& ops);  // mutex_ held
  const std::string& memory_once_key(const OnceOp& op);      // mutex_ held: into memory_once_scratch_
  bool in_memory_ = false;
  std::unordered_map<std::string, MemoryOnce> memory_once_;  // under mutex_; key: memory_once_key()
  std::string memory_once_scratch_;

  GroupCommit<OnceOp> once_commits_;              // its lock is never held while waiting for mutex_
  GroupCommit<MessageOp> message_commits_;        // likewise
  std::atomic<std::uint64_t> commits_{0};         // transactions committed on db_ (its commit hook)
  std::atomic<std::size_t> messages_pending_{0};  // appended by this instance since the last index batch
  std::atomic<std::uint64_t> index_batches_{0};
  std::atomic<std::uint64_t> index_catch_ups_{0};
  bool indexing_ = false;  // opened and migrated: the destructor indexes what is pending
};

}  // namespace sigil::store::sqlite
