// The embedded store: a SQLite database file (WAL). The public way to open one; the implementation
// (src/store/sqlite/) says how it is built and what it promises about threads, durability and isolation.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "sigil/store/store.h"

namespace sigil::store::sqlite {

struct OpenOptions {
  std::chrono::milliseconds busy_timeout{5000};
  // Commit exactly-once log writes with synchronous=FULL (one fsync each). Off: NORMAL like the rest,
  // which survives a process crash but not power loss.
  bool sync_once_log = true;
  // Overall caps per user (a model in a loop, or a hostile client, cannot fill the disk): beyond them
  // put_page and add_task fail with a message saying so (the action reports it to the model). 0: no cap.
  std::size_t max_pages_per_user = 200;
  std::size_t max_pending_tasks_per_user = 100;
  // Messages kept per conversation. Appending one more deletes the oldest beyond it in the same transaction,
  // so a long chat goes on and only what no model call would send any more is lost (recent_messages and
  // search_messages see the kept ones). 0: no cap.
  std::size_t max_messages_per_conversation = 10'000;
  // History appends left out of the full-text index until this many are pending; then one statement
  // indexes them all (one FTS5 segment for the lot, not one per message). Searches, closing and opening
  // index whatever is pending first, so a search never misses a message whose append had returned.
  // 0 or 1: each append is indexed right after its own commit.
  std::size_t history_index_batch = 64;
};

// Opens (creating if needed) and migrates the database at `path`; ":memory:" for a private in-memory
// database. Fails with the reason (a newer schema, a damaged file, no permission, ...).
Result<std::unique_ptr<Store>> open(const std::string& path, const OpenOptions& options = {});

// The schema version this build creates and reads.
int latest_schema_version() noexcept;

}  // namespace sigil::store::sqlite
