// Schema 11: the history's full-text index is written in batches (messages.cpp, index_pending_messages).
// What it must keep: a search sees every message whose append returned, whatever is pending; deletes and
// updates of pending and indexed rows leave the index exactly what a rebuild makes; rows left pending by
// a closed or killed process are indexed at the next open; and a batch is one index write, not one per
// append.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

// The index's rows matching `term`, as "id,id,..." in id order, read from the file without the store (so
// without its catch-up before a search).
std::string indexed_ids(const std::string& path, const std::string& term) {
  return raw_query(path,
                   "SELECT coalesce(group_concat(rowid, ','), '') FROM (SELECT rowid FROM messages_fts "
                   "WHERE messages_fts MATCH '" +
                       term + "' ORDER BY rowid)");
}
// Likewise with each hit's bm25 rank ("id:rank,..."): the rank reads FTS5's row and token totals, which a
// 'delete' of a row never indexed throws off while the hits, and SQLite 3.40's integrity-check, stay as they
// were.
std::string indexed_ranks(const std::string& path, const std::string& term) {
  return raw_query(path,
                   "SELECT coalesce(group_concat(hit, ','), '') FROM (SELECT rowid || ':' || "
                   "coalesce(printf('%.9g', bm25(messages_fts)), 'null') AS hit FROM messages_fts "
                   "WHERE messages_fts MATCH '" +
                       term + "' ORDER BY rowid)");
}
// History rows above the watermark: appended, not yet indexed.
std::string pending_rows(const std::string& path) {
  return raw_query(path, "SELECT count(*) FROM messages WHERE id > (SELECT up_to FROM messages_fts_indexed)");
}

Message said(const std::string& text) { return Message{0, "user", text, "t1", kT0, {}, {}}; }

std::unique_ptr<Store> open_with_batch(const std::string& path, std::size_t batch, std::size_t cap = 0) {
  sqlite::OpenOptions options;
  options.history_index_batch = batch;
  options.max_messages_per_conversation = cap;
  return open_or_fail(path, options);
}

// Appends "common w<first> ..." up to "common w<last-1>".
void append_range(Store& store, int first, int last) {
  for (int i = first; i < last; ++i)
    ASSERT_TRUE(store.append_message(kAlice, said("common w" + std::to_string(i))).ok()) << i;
}

// Appends messages 0..n-1 and indexes them (a search catches up first): ids 1..n indexed, none pending.
void append_indexed(Store& store, int n) {
  append_range(store, 0, n);
  ASSERT_TRUE(store.search_messages(kAlice, "w0", 1).ok());
}

// FTS5's own check of the index against the content table, and the index's hits and their ranks for each
// term equal to what a rebuild from the content makes.
void expect_index_equals_rebuild(const std::string& path, const std::vector<std::string>& terms) {
  EXPECT_EQ(raw_exec(path, "INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')"), "");
  std::vector<std::string> before;
  for (const auto& term : terms) before.push_back(indexed_ranks(path, term));
  EXPECT_EQ(raw_exec(path, "INSERT INTO messages_fts(messages_fts) VALUES('rebuild')"), "");
  for (std::size_t i = 0; i < terms.size(); ++i)
    EXPECT_EQ(indexed_ranks(path, terms[i]), before[i]) << terms[i];
}

// Most tests open a store file of their own in a fresh folder.
class SqliteHistoryIndex : public ::testing::Test {
 protected:
  TempDir dir;
  const std::string path = dir.file("sigil.db");
};

TEST_F(SqliteHistoryIndex, SearchSeesEveryAppendedMessageWhateverIsPending) {
  // With the default batch (64) the pending counts are n mod 64; with one never reached, n itself.
  for (const std::size_t batch : {std::size_t{64}, std::size_t{5000}}) {
    for (const int n : {0, 1, 63, 64, 65, 1000}) {
      TempDir dir;
      const std::string path = dir.file("sigil.db");
      auto store = open_with_batch(path, batch);
      ASSERT_NE(store, nullptr);
      append_range(*store, 0, n);
      const std::size_t expected_pending = static_cast<std::size_t>(n) % batch;
      EXPECT_EQ(pending_rows(path), std::to_string(expected_pending)) << "batch " << batch << ", n " << n;
      if (n > 0) {  // the last one and the first one, pending or not
        for (const int i : {n - 1, 0}) {
          auto hits = store->search_messages(kAlice, "w" + std::to_string(i), 5);
          ASSERT_TRUE(hits.ok()) << hits.error();
          ASSERT_EQ(hits->size(), 1u) << "batch " << batch << ", n " << n << ", w" << i;
          EXPECT_EQ((*hits)[0].message.text, "common w" + std::to_string(i));
        }
      }
      auto all = store->search_user_messages(kAlice, "common", 1000);
      ASSERT_TRUE(all.ok()) << all.error();
      EXPECT_EQ(all->size(), static_cast<std::size_t>(n));
      EXPECT_EQ(pending_rows(path), "0");
    }
  }
}

TEST_F(SqliteHistoryIndex, InMemorySearchSeesPendingMessages) {
  sqlite::OpenOptions options;
  auto store = open_or_fail(":memory:", options);
  ASSERT_NE(store, nullptr);
  append_range(*store, 0, 65);  // one batch indexed, one message pending
  for (const int i : {0, 64}) {
    auto hits = store->search_messages(kAlice, "w" + std::to_string(i), 5);
    ASSERT_TRUE(hits.ok()) << hits.error();
    EXPECT_EQ(hits->size(), 1u) << i;
  }
}

TEST_F(SqliteHistoryIndex, OneBatchIsOneIndexWrite) {
  auto opened = sqlite::SqliteStore::open(path);
  ASSERT_TRUE(opened.ok()) << opened.error();
  auto& store = static_cast<sqlite::SqliteStore&>(**opened);
  const std::uint64_t commits = store.commits();
  append_range(store, 0, 63);
  // An append writes its row and nothing else: the index holds none of the 63 yet.
  EXPECT_EQ(store.index_batches(), 0u);
  EXPECT_EQ(store.commits() - commits, 63u);
  EXPECT_EQ(indexed_ids(path, "common"), "");
  append_range(store, 63, 64);
  // The 64th: its own commit, then one transaction indexing all 64 in one FTS5 segment.
  EXPECT_EQ(store.index_batches(), 1u);
  EXPECT_EQ(store.commits() - commits, 65u);
  EXPECT_EQ(raw_query(path, "SELECT count(DISTINCT segid) FROM messages_fts_idx"), "1");
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'common'"), "64");
  // A search with nothing pending writes nothing, and does not wait for the write lock.
  ASSERT_TRUE(store.search_messages(kAlice, "common", 5).ok());
  EXPECT_EQ(store.index_batches(), 1u);
  EXPECT_EQ(store.commits() - commits, 65u);
  EXPECT_EQ(store.index_catch_ups(), 0u);
  // One pending: the search takes the lock and indexes it.
  append_range(store, 64, 65);
  auto hits = store.search_messages(kAlice, "w64", 5);
  ASSERT_TRUE(hits.ok()) << hits.error();
  EXPECT_EQ(hits->size(), 1u);
  EXPECT_EQ(store.index_catch_ups(), 1u);
  EXPECT_EQ(store.index_batches(), 2u);
}

TEST_F(SqliteHistoryIndex, DeletesAndUpdatesOfPendingAndIndexedRowsKeepTheIndexExact) {
  auto store = open_with_batch(path, 5000);
  ASSERT_NE(store, nullptr);
  append_indexed(*store, 10);    // ids 1..10 indexed
  append_range(*store, 10, 20);  // ids 11..20 pending
  EXPECT_EQ(pending_rows(path), "10");
  // An indexed and a pending row each changed and each deleted, bypassing the store as a migration would.
  EXPECT_EQ(raw_exec(path,
                     "UPDATE messages SET text = 'changed w2' WHERE id = 3;"
                     "UPDATE messages SET text = 'changed w14' WHERE id = 15;"
                     "DELETE FROM messages WHERE id IN (5, 17);"),
            "");
  EXPECT_EQ(raw_exec(path, "INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')"), "");
  auto changed = store->search_messages(kAlice, "changed", 10);
  ASSERT_TRUE(changed.ok()) << changed.error();
  EXPECT_EQ(changed->size(), 2u);
  EXPECT_EQ(indexed_ids(path, "common"), "1,2,4,6,7,8,9,10,11,12,13,14,16,18,19,20");
  EXPECT_EQ(indexed_ids(path, "changed"), "3,15");
  expect_index_equals_rebuild(path, {"common", "changed", "w2", "w14", "w4", "w16"});
}

TEST_F(SqliteHistoryIndex, TheHistoryCapPrunesIndexedAndPendingRowsAlike) {
  {
    auto store = open_with_batch(path, 8, /*cap=*/3);
    ASSERT_NE(store, nullptr);
    // Batches of 8 against a cap of 3: the cap deletes indexed rows (the batch's last ones) and pending ones.
    append_range(*store, 0, 23);
    EXPECT_EQ(raw_query(path, "SELECT up_to FROM messages_fts_indexed"), "16");
    EXPECT_EQ(pending_rows(path), "3");
    EXPECT_EQ(raw_exec(path, "INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')"), "");
    auto all = store->search_messages(kAlice, "common", 100);
    ASSERT_TRUE(all.ok()) << all.error();
    EXPECT_EQ(all->size(), 3u);
    EXPECT_EQ(indexed_ids(path, "common"), "21,22,23");
  }
  expect_index_equals_rebuild(path, {"common", "w17", "w22"});
}

TEST_F(SqliteHistoryIndex, AReusedIdAfterTheNewestRowsWentIsIndexed) {
  auto store = open_with_batch(path, 5000);
  ASSERT_NE(store, nullptr);
  append_indexed(*store, 5);  // ids 1..5 indexed
  // The newest rows go (the whole conversation), so SQLite hands their ids out again: the new rows are
  // pending, not taken for indexed ones.
  ASSERT_TRUE(*store->delete_conversation(kAlice));
  EXPECT_EQ(raw_query(path, "SELECT up_to FROM messages_fts_indexed"), "0");
  ASSERT_TRUE(store->append_message(kAlice, said("reborn one")).ok());
  ASSERT_TRUE(store->append_message(kAlice, said("reborn two")).ok());
  EXPECT_EQ(raw_query(path, "SELECT group_concat(id) FROM messages"), "1,2");
  auto hits = store->search_messages(kAlice, "reborn", 5);
  ASSERT_TRUE(hits.ok()) << hits.error();
  EXPECT_EQ(hits->size(), 2u);
  ASSERT_TRUE(*store->delete_conversation(kAlice));  // deletes them from the index again
  expect_index_equals_rebuild(path, {"reborn", "common"});
  EXPECT_EQ(indexed_ids(path, "reborn"), "");
}

TEST_F(SqliteHistoryIndex, ClosingIndexesWhatIsPending) {
  {
    auto store = open_with_batch(path, 5000);
    ASSERT_NE(store, nullptr);
    append_range(*store, 0, 10);
    EXPECT_EQ(pending_rows(path), "10");
  }
  EXPECT_EQ(pending_rows(path), "0");
  EXPECT_EQ(indexed_ids(path, "w9"), "10");
}

TEST_F(SqliteHistoryIndex, RowsAKilledProcessLeftPendingAreIndexedAtOpen) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    sqlite::OpenOptions options;
    options.history_index_batch = 5000;
    auto opened = sqlite::SqliteStore::open(path, options);
    if (!opened.ok()) _exit(10);
    Store* store = opened.value().release();  // never closed
    for (int i = 0; i < 30; ++i)
      if (!store->append_message(kAlice, said("common w" + std::to_string(i))).ok()) _exit(11);
    if (write(ready[1], "x", 1) != 1) _exit(12);
    for (;;) pause();
  }
  close(ready[1]);
  char byte = 0;
  if (read(ready[0], &byte, 1) == 1) kill(pid, SIGKILL);
  close(ready[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(pending_rows(path), "30");  // the child was killed before any batch
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(pending_rows(path), "0");  // by the open itself, before any search
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'common'"), "30");
  expect_index_equals_rebuild(path, {"common", "w0", "w29"});
}

TEST_F(SqliteHistoryIndex, AStoreOfTheOldSchemaGainsTheWatermark) {
  // As a version-10 gateway left it: every row indexed by the insert trigger.
  EXPECT_EQ(make_old_history(path, kDropSchemaVersion11, 10,
                             "('alice', 'chat-1', 'user', 'old one', 't1', 1),"
                             "('alice', 'chat-1', 'assistant', 'old two', 't1', 2),"
                             "('alice', 'chat-1', 'user', 'old three', 't2', 3);"),
            "");
  EXPECT_EQ(indexed_ids(path, "old"), "1,2,3");
  auto store = open_with_batch(path, 5000);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(raw_query(path, "SELECT version FROM schema_version"),
            std::to_string(sqlite::SqliteStore::latest_schema_version()));
  EXPECT_EQ(raw_query(path, "SELECT up_to FROM messages_fts_indexed"), "3");
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM sqlite_master WHERE name = 'messages_fts_insert'"), "0");
  ASSERT_TRUE(store->append_message(kAlice, said("old four")).ok());
  EXPECT_EQ(indexed_ids(path, "old"), "1,2,3");  // the new one pending
  EXPECT_EQ(raw_exec(path, "DELETE FROM messages WHERE id IN (2, 4)"), "");
  auto hits = store->search_messages(kAlice, "old", 10);
  ASSERT_TRUE(hits.ok()) << hits.error();
  EXPECT_EQ(hits->size(), 2u);
  expect_index_equals_rebuild(path, {"old", "two", "four"});
}

}  // namespace
}  // namespace sigil::store::testing
